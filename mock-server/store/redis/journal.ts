/**
 * The request journal in Redis: one list for every process (newest first, trimmed to the capacity in
 * the same script that adds), so GET /__mock/requests shows the requests any of them served.
 */
import {
  format,
  matches,
  withoutSecrets,
  type JournalEntry,
  type JournalFilter,
  type Recorded,
  type RequestJournal,
} from "../journal.js";
import type { RedisLink } from "./redis.js";

export class RedisJournal implements RequestJournal {
  constructor(
    private readonly link: RedisLink,
    readonly capacity: number,
  ) {}

  async add(entry: Omit<Recorded, "seq">): Promise<void> {
    if (this.capacity <= 0) return;
    await this.link.journalAdd({ ...entry, url: withoutSecrets(entry.url) }, this.capacity);
  }

  async list(filter: JournalFilter = {}): Promise<JournalEntry[]> {
    const limit = filter.limit ?? Infinity;
    const out: JournalEntry[] = [];
    for (const recorded of await this.all()) {
      if (out.length >= limit) break;
      if (matches(recorded, filter)) out.push(format(recorded));
    }
    return out;
  }

  async count(filter: JournalFilter = {}): Promise<number> {
    return (await this.all()).filter((r) => matches(r, filter)).length;
  }

  async clear(workspaceId?: string): Promise<void> {
    await this.link.journalClear(workspaceId);
  }

  private async all(): Promise<Recorded[]> {
    return (await this.link.journalAll()).map((text) => JSON.parse(text) as Recorded);
  }
}

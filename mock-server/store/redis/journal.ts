/**
 * The request journal in Redis: one list for every process (newest first, trimmed to the capacity in
 * the same script that adds), so GET /__mock/requests shows the requests any of them served.
 */
import {
  format,
  matches,
  oldestOf,
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
    const { variants, exchange, ...rest } = entry;
    const coverage =
      variants && rest.workspaceId !== null ? { workspaceId: rest.workspaceId, keys: variants } : undefined;
    if (this.capacity <= 0 && !coverage) return;
    await this.link.journalAdd({ ...rest, url: withoutSecrets(rest.url) }, Math.max(0, this.capacity), coverage);
  }

  async exchanges(filter: JournalFilter = {}): Promise<Recorded[]> {
    return oldestOf(await this.all(), filter);
  }

  async addVariants(workspaceId: string, keys: readonly string[]): Promise<void> {
    await this.link.coverageAdd(workspaceId, keys);
  }

  async variantsSeen(workspaceId: string): Promise<ReadonlySet<string>> {
    return new Set(await this.link.coverageOf(workspaceId));
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

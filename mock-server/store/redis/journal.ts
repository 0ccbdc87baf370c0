/**
 * The request journal in Redis: one list for every process (newest first, trimmed to the capacity in
 * the same script that adds), so GET /__mock/requests shows the requests any of them served.
 *
 * A /v1 exchange is kept for the HAR export in its safe form only (store/safe-exchange.ts): redacted,
 * decoded and cut at CAPTURE_LIMIT here, before it leaves the process. It is written last in the
 * entry (`,"safe":{...}}`), so the readers that show or count entries cut it off unparsed.
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
import { redactedExchange, redactExchange, type SafeExchange } from "../safe-exchange.js";
import type { RedisLink } from "./redis.js";

/** An entry as the list holds it: the exchange's safe form, if any, last. */
type Stored = Recorded & { safe?: SafeExchange };

/** Where an entry's exchange starts: no other field is named `safe`, and a quote inside a string is escaped. */
const SAFE_FIELD = ',"safe":';

export class RedisJournal implements RequestJournal {
  constructor(
    private readonly link: RedisLink,
    readonly capacity: number,
  ) {}

  async add(entry: Omit<Recorded, "seq">): Promise<number | undefined> {
    const { variants, exchange, ...rest } = entry;
    const coverage =
      variants && rest.workspaceId !== null ? { workspaceId: rest.workspaceId, keys: variants } : undefined;
    if (this.capacity <= 0 && !coverage) return undefined;
    const url = withoutSecrets(rest.url);
    // An exchange that cannot be made safe is not kept at all: the entry still is.
    const safe = exchange && this.capacity > 0 ? await redactExchange(url, exchange).catch(() => undefined) : undefined;
    const seq = await this.link.journalAdd(
      { ...rest, url, ...(safe && { safe }) },
      Math.max(0, this.capacity),
      coverage,
    );
    return this.capacity > 0 ? seq : undefined;
  }

  async exchanges(filter: JournalFilter = {}): Promise<Recorded[]> {
    const all = (await this.link.journalAll()).map((text) => {
      const { safe, ...recorded } = JSON.parse(text) as Stored;
      return safe ? { ...recorded, exchange: redactedExchange(safe) } : recorded;
    });
    return oldestOf(all, filter);
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

  /** The entries without their exchanges, which are cut off before parsing: listing stays as cheap as it was. */
  private async all(): Promise<Recorded[]> {
    return (await this.link.journalAll()).map((text) => {
      const at = text.indexOf(SAFE_FIELD);
      return JSON.parse(at === -1 ? text : `${text.slice(0, at)}}`) as Recorded;
    });
  }
}

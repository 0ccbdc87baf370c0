/**
 * The request journal in Redis: one list for every process (newest first, trimmed to the capacity in
 * the same script that adds), so GET /__mock/requests shows the requests any of them served.
 *
 * Off the answer's path: `add` hands the entry to the connection and does not wait for Redis' answer.
 * Entries go out as they come, pipelined on the connection: those of one turn of the event loop as one
 * script call, with their coverage and every other command of the turn, in one write per node (the
 * link's outbox, outbox.ts); one without an exchange to make safe is written before `add` returns. The
 * answer written after it (`sending()` says when it may be: the entry is written) cannot reach a client
 * before the entry reaches Redis, so a client that reads the journal next, through any process, finds it. At most
 * MAX_IN_FLIGHT entries are unconfirmed: beyond that an entry waits for room, and so does its answer
 * (`sending()`): backpressure, never a silent drop. An entry whose send failed (the store away) is
 * kept, up to MAX_KEPT (beyond that the oldest go, with one log line), and sent again every RETRY_MS.
 * `flush()` resolves when everything added so far is in Redis; this process's reads flush first, and
 * the mock flushes on close. The variants an answer showed go to the workspace's coverage set (its
 * slot) the same way, with the entry.
 *
 * A /v1 exchange is kept for the HAR export in its safe form only (store/safe-exchange.ts): redacted,
 * decoded and cut at CAPTURE_LIMIT here, before it leaves the process. It is written last in the
 * entry (`,"safe":{...}}`), so the readers that show or count entries cut it off unparsed.
 */
import { ApiError } from "../../core/errors.js";
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

/** Entries sent and not yet confirmed, at most. */
export const MAX_IN_FLIGHT = 1_000;
/** Entries kept while the store is away, at most. */
export const MAX_KEPT = 10_000;
const RETRY_MS = 500;

/** One write: an entry, or a coverage addition. Settled once Redis confirmed it (or it was dropped). */
interface Item {
  send: () => Promise<number | unknown>;
  settle: (seq: number | undefined) => void;
  /** Resolves `handedOver` when the item is handed to the connection: what an answer waits for. */
  handed: () => void;
  isHanded: boolean;
  handedOver: Promise<void>;
}

export interface JournalLimits {
  maxInFlight?: number;
  maxKept?: number;
  retryMs?: number;
}

export class RedisJournal implements RequestJournal {
  /** Entries whose safe exchange is being made. */
  private preparing = 0;
  /** Waiting for room. */
  private readonly queue: Item[] = [];
  private readonly inFlight = new Set<Item>();
  /** Sends that failed, kept to be sent again. */
  private kept: Item[] = [];
  private retry: ReturnType<typeof setTimeout> | undefined;
  /** Told of each item that moves on (flush waits on it). */
  private waiters: (() => void)[] = [];
  /** The last entry added. */
  private last: Item | undefined;
  /** Workspaces this process has put in the coverage index. */
  private readonly indexed = new Set<string>();
  private readonly maxInFlight: number;
  private readonly maxKept: number;
  private readonly retryMs: number;

  constructor(
    private readonly link: RedisLink,
    readonly capacity: number,
    limits: JournalLimits = {},
  ) {
    this.maxInFlight = limits.maxInFlight ?? MAX_IN_FLIGHT;
    this.maxKept = limits.maxKept ?? MAX_KEPT;
    this.retryMs = limits.retryMs ?? RETRY_MS;
  }

  /**
   * Sends the entry (see the file's comment). The promise says its seq once Redis has it, or undefined
   * at once when the send failed (the entry is kept and sent again); it never rejects.
   */
  add(entry: Omit<Recorded, "seq">): Promise<number | undefined> | undefined {
    const { variants, exchange, ...rest } = entry;
    const workspaceId = rest.workspaceId;
    // The coverage goes with the entry, in its write (one per node).
    const sendVariants =
      variants && variants.length > 0 && workspaceId !== null
        ? () => this.sendVariants(workspaceId, variants)
        : () => undefined;
    if (this.capacity <= 0) return void sendVariants();
    const url = withoutSecrets(rest.url);
    const capacity = this.capacity;
    const { item, seq } = this.item();
    this.last = item;
    if (!exchange) {
      item.send = () => this.link.journalSend(JSON.stringify({ ...rest, url }), capacity);
      // Written before add returns: its answer need not wait (`sending()` says so).
      this.link.together(() => {
        sendVariants();
        this.enqueue(item);
      });
      return seq;
    }
    // An exchange that cannot be made safe is not kept at all: the entry still is.
    this.preparing++;
    this.changed();
    void redactExchange(url, exchange)
      .catch(() => undefined)
      .then((safe) => {
        item.send = () => this.link.journalSend(JSON.stringify({ ...rest, url, ...(safe && { safe }) }), capacity);
        this.preparing--;
        // Its answer waits for it already: it goes with the other commands of this turn (outbox.ts).
        sendVariants();
        this.enqueue(item);
      });
    return seq;
  }

  /**
   * Resolves when the entry added last is on its way to Redis (its exchange made safe, room in flight):
   * the answer may go then. Undefined when it already is.
   */
  sending(): Promise<void> | undefined {
    return this.last && !this.last.isHanded ? this.last.handedOver : undefined;
  }

  /** Resolves when everything added so far is in Redis; rejects (the store's 500) when it cannot be sent now. */
  async flush(): Promise<void> {
    this.resend();
    while (this.preparing > 0 || this.queue.length > 0 || this.inFlight.size > 0)
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    if (this.kept.length > 0)
      throw new ApiError(
        500,
        `The shared store (${this.link.where()}) is unavailable: ${this.kept.length} journal entries wait to be written`,
      );
  }

  async exchanges(filter: JournalFilter = {}): Promise<Recorded[]> {
    await this.flush();
    const all = (await this.link.journalAll()).map((text) => {
      const { safe, ...recorded } = JSON.parse(text) as Stored;
      return safe ? { ...recorded, exchange: redactedExchange(safe) } : recorded;
    });
    return oldestOf(all, filter);
  }

  /** Sent like an entry: flushed before coverage is read. */
  addVariants(workspaceId: string, keys: readonly string[]): void {
    if (keys.length > 0) void this.sendVariants(workspaceId, keys);
  }

  async variantsSeen(workspaceId: string): Promise<ReadonlySet<string>> {
    await this.flush();
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
    await this.flush();
    await this.link.journalClear(workspaceId);
  }

  /** The entries without their exchanges, which are cut off before parsing: listing stays as cheap as it was. */
  private async all(): Promise<Recorded[]> {
    await this.flush();
    return (await this.link.journalAll()).map((text) => {
      const at = text.indexOf(SAFE_FIELD);
      return JSON.parse(at === -1 ? text : `${text.slice(0, at)}}`) as Recorded;
    });
  }

  /** The workspace's set gets the keys (and the index the workspace, the first time this process adds to it). */
  private sendVariants(workspaceId: string, keys: readonly string[]): Promise<number | undefined> {
    const index = !this.indexed.has(workspaceId);
    this.indexed.add(workspaceId);
    const { item, seq } = this.item();
    item.send = () => this.link.coverageSend(workspaceId, keys, index);
    this.enqueue(item);
    return seq;
  }

  private item(): { item: Item; seq: Promise<number | undefined> } {
    let settle!: (seq: number | undefined) => void;
    let resolveHanded!: () => void;
    const seq = new Promise<number | undefined>((resolve) => (settle = resolve));
    const handedOver = new Promise<void>((resolve) => (resolveHanded = resolve));
    const item: Item = {
      send: () => Promise.resolve(undefined),
      settle,
      isHanded: false,
      handedOver,
      handed: () => {
        item.isHanded = true;
        resolveHanded();
      },
    };
    return { item, seq };
  }

  private enqueue(item: Item): void {
    if (this.inFlight.size < this.maxInFlight && this.queue.length === 0) this.send(item);
    else this.queue.push(item);
    this.changed();
  }

  private send(item: Item): void {
    this.inFlight.add(item);
    // Sent now, written with this turn's commands (outbox.ts): its answer may go once it is.
    const sent = item.send();
    this.link.whenWritten(item.handed);
    sent.then(
      (seq) => {
        this.inFlight.delete(item);
        item.settle(typeof seq === "number" ? seq : undefined);
        this.pump();
      },
      () => {
        this.inFlight.delete(item);
        // Whoever waits for the seq learns now that there is none yet; the entry itself is kept.
        item.settle(undefined);
        this.keep(item);
        this.pump();
      },
    );
  }

  /** Sends what waited for room. */
  private pump(): void {
    while (this.queue.length > 0 && this.inFlight.size < this.maxInFlight) this.send(this.queue.shift()!);
    this.changed();
  }

  private keep(item: Item): void {
    this.kept.push(item);
    if (this.kept.length > this.maxKept) {
      const dropped = this.kept.splice(0, this.kept.length - this.maxKept);
      for (const lost of dropped) lost.settle(undefined);
      this.link.log(
        `shared store ${this.link.where()}: away too long, ${dropped.length} journal entries dropped (the oldest kept)`,
      );
    }
    if (!this.retry) {
      this.retry = setTimeout(() => {
        this.retry = undefined;
        this.resend();
      }, this.retryMs);
      this.retry.unref();
    }
  }

  /** Sends the kept items again, oldest first (they get new seqs: the journal orders by arrival). */
  private resend(): void {
    const again = this.kept;
    this.kept = [];
    if (this.retry) clearTimeout(this.retry);
    this.retry = undefined;
    for (const item of again) this.enqueue(item);
  }

  /** Counts what is not yet in Redis, and wakes flush. */
  private changed(): void {
    this.link.journalPending = this.preparing + this.queue.length + this.inFlight.size + this.kept.length;
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}

/**
 * The request journal: recent requests, newest first, in a bounded ring so a mock left running for
 * days does not grow. GET /__mock/requests shows method, path and outcome only. A /v1 exchange also keeps
 * its headers and bodies (up to CAPTURE_LIMIT each) for the HAR export, which redacts them; they are held
 * by reference here, so the answer path copies nothing.
 *
 * The journal also keeps what each workspace's traffic has shown of the spec's response variants
 * (GET /__mock/coverage): a set per workspace that the ring's bound does not forget, cleared with the
 * workspace's journal.
 */
import { pathOf } from "../core/errors.js";
import { SECRET_QUERY_NAME } from "../core/secrets.js";
import type { AnswerSource, FormPart } from "../core/exchange.js";

/** Bodies the journal keeps for the HAR export, each cut at this many bytes. */
export const CAPTURE_LIMIT = 64 * 1024;

/** A /v1 exchange's headers and bodies, as the door read and sent them (secrets still in: the export redacts). */
export interface CapturedExchange {
  requestHeaders: Record<string, string | string[] | undefined>;
  /** The JSON body as parsed, or a form's parts (files as their names and sizes); absent when none was read. */
  requestBody?: { json: unknown } | { form: readonly FormPart[] };
  responseHeaders: Record<string, string | string[]>;
  /** The bytes sent (JSON text for the mock's answers), cut at CAPTURE_LIMIT; absent for no body. */
  responseBody?: string | Uint8Array;
  /**
   * The mock's JSON answer to a GET, whose `JSON.stringify` is the body sent byte for byte (records are
   * never changed in place: core/reply-json.ts). The journal in memory keeps this in place of the text:
   * a page's text held for every journaled request made the garbage collector copy and promote each one,
   * the largest cost of a list request; the text is made again only when the exchange is read.
   */
  responseJson?: unknown;
  /** The whole response body's size in bytes, when it was cut. */
  responseBytes?: number;
}

export interface JournalEntry {
  id: string;
  at: string;
  method: string;
  path: string;
  query: string;
  /** The operation the request was routed to (of the API or of the control plane), or null. */
  operationId: string | null;
  workspaceId: string | null;
  /** null when a fault rule destroyed the connection instead of answering. */
  status: number | null;
  durationMs: number;
  /** The fault rule applied to the request, or null. */
  faultId: string | null;
  /** In front of an upstream (--upstream): where the answer came from. */
  source?: AnswerSource;
}

/** What is kept per request: raw values, formatted only when the journal is read. */
export interface Recorded {
  seq: number;
  atMs: number;
  method: string;
  url: string;
  operationId: string | null;
  workspaceId: string | null;
  status: number | null;
  durationMs: number;
  faultId: string | null;
  source?: AnswerSource;
  /** /v1 exchanges only: what the HAR export shows. */
  exchange?: CapturedExchange;
  /** The response variants this answer showed (core/coverage): folded into the workspace's set, not kept here. */
  variants?: string[];
}

/** GET /__mock/requests and /count: every given field must match; `limit` keeps the newest that many. */
export interface JournalFilter {
  operationId?: string;
  workspaceId?: string;
  /** Upper case. */
  method?: string;
  status?: number;
  limit?: number;
}

/** The journal as the core and the control plane use it: in this process (Journal), or in Redis (store/redis/journal.ts). */
export interface RequestJournal {
  readonly capacity: number;
  /** Keeps the entry; returns the id (seq) it was given, undefined when the journal keeps none (capacity 0). */
  add(entry: Omit<Recorded, "seq">): number | undefined | Promise<number | undefined>;
  list(filter?: JournalFilter): JournalEntry[] | Promise<JournalEntry[]>;
  count(filter?: JournalFilter): number | Promise<number>;
  /** Oldest first, the kept entries that pass the filter, with their captured exchanges (the HAR export). */
  exchanges(filter?: JournalFilter): Recorded[] | Promise<Recorded[]>;
  /** Adds variants a workspace's traffic showed after its answer (the upstream door's, checked later). */
  addVariants(workspaceId: string, keys: readonly string[]): void | Promise<void>;
  /** The variant keys the workspace's traffic has shown since its journal was last cleared. */
  variantsSeen(workspaceId: string): ReadonlySet<string> | Promise<ReadonlySet<string>>;
  /** Forgets every request (and every workspace's variants), or one workspace's. */
  clear(workspaceId?: string): void | Promise<void>;
  /**
   * A journal that writes elsewhere (Redis) without waiting for the answer: a promise while the last entry
   * added is not yet on its way (the reply waits for that, so a client reading the journal next finds it).
   */
  sending?(): Promise<void> | undefined;
  /** Resolves when every entry added so far is written (on close and SIGTERM: nothing answered is lost). */
  flush?(): Promise<void>;
}

const encoder = new TextEncoder();

/** A text's UTF-8 size: Buffer measures without encoding; the MSW door in a browser has no Buffer. */
const NodeBuffer = (globalThis as { Buffer?: typeof Buffer }).Buffer;
const utf8Bytes = (text: string) => (NodeBuffer ? NodeBuffer.byteLength(text, "utf8") : encoder.encode(text).length);

/**
 * The captured exchange cut to CAPTURE_LIMIT: a copy only of a body over it, and only of its first
 * CAPTURE_LIMIT bytes (encoded straight into them: the journal adds on the answer's path).
 */
export function capped(exchange: CapturedExchange): CapturedExchange {
  if (exchange.responseJson !== undefined) {
    // Kept as the answer itself (see responseJson): cut, if at all, when its text is made again.
    const { responseBody: _text, ...kept } = exchange;
    return kept;
  }
  const body = exchange.responseBody;
  // UTF-8 takes at most 3 bytes per UTF-16 unit: a text this short fits whatever it holds.
  if (body === undefined || body.length <= CAPTURE_LIMIT / 3) return exchange;
  if (typeof body !== "string")
    return body.length <= CAPTURE_LIMIT
      ? exchange
      : { ...exchange, responseBody: body.slice(0, CAPTURE_LIMIT), responseBytes: body.length };
  const bytes = utf8Bytes(body);
  if (bytes <= CAPTURE_LIMIT) return exchange;
  const cut = new Uint8Array(CAPTURE_LIMIT);
  const { written } = encoder.encodeInto(body, cut);
  return { ...exchange, responseBody: cut.subarray(0, written), responseBytes: bytes };
}

export class Journal implements RequestJournal {
  private ring: Recorded[] = [];
  private next = 0;
  private seq = 0;
  private readonly variants = new Map<string, Set<string>>();

  constructor(readonly capacity: number) {}

  /**
   * Formatting (time, path) waits until the journal is read; a secret in the query is redacted now. The
   * ring holds a record of its own, the fields copied: holding the caller's object (made on the answer's
   * path, then changed here) cost a list request about a fifth of its CPU in the garbage collector
   * (paired runs of GET /v1/calls?page=0&size=10: 62 against 49 µs per request).
   */
  add(entry: Omit<Recorded, "seq">): number | undefined {
    if (entry.variants && entry.workspaceId !== null) this.addVariants(entry.workspaceId, entry.variants);
    if (this.capacity <= 0) return undefined;
    const recorded: Recorded = {
      seq: ++this.seq,
      atMs: entry.atMs,
      method: entry.method,
      url: withoutSecrets(entry.url),
      operationId: entry.operationId,
      workspaceId: entry.workspaceId,
      status: entry.status,
      durationMs: entry.durationMs,
      faultId: entry.faultId,
      source: entry.source,
      exchange: entry.exchange && capped(entry.exchange),
    };
    if (this.ring.length < this.capacity) this.ring.push(recorded);
    else this.ring[this.next] = recorded;
    this.next = (this.next + 1) % this.capacity;
    return recorded.seq;
  }

  /** Newest first, those that pass the filter. */
  list(filter: JournalFilter = {}): JournalEntry[] {
    const out: JournalEntry[] = [];
    const limit = filter.limit ?? Infinity;
    for (const recorded of this.newestFirst()) {
      if (out.length >= limit) break;
      if (matches(recorded, filter)) out.push(format(recorded));
    }
    return out;
  }

  /** How many kept requests pass the filter (`limit` ignored): the journal keeps the newest `capacity`. */
  count(filter: JournalFilter = {}): number {
    let n = 0;
    for (const recorded of this.ring) if (matches(recorded, filter)) n++;
    return n;
  }

  exchanges(filter: JournalFilter = {}): Recorded[] {
    return oldestOf(this.newestFirst(), filter);
  }

  addVariants(workspaceId: string, keys: readonly string[]): void {
    if (keys.length === 0) return;
    let seen = this.variants.get(workspaceId);
    if (!seen) this.variants.set(workspaceId, (seen = new Set()));
    for (const key of keys) seen.add(key);
  }

  variantsSeen(workspaceId: string): ReadonlySet<string> {
    return this.variants.get(workspaceId) ?? new Set();
  }

  clear(workspaceId?: string): void {
    if (workspaceId === undefined) this.variants.clear();
    else this.variants.delete(workspaceId);
    const kept =
      workspaceId === undefined ? [] : [...this.newestFirst()].reverse().filter((r) => r.workspaceId !== workspaceId);
    this.ring = kept;
    this.next = kept.length % Math.max(1, this.capacity);
  }

  private *newestFirst(): Generator<Recorded> {
    // The ring holds oldest..newest from `next` on (wrapping); until it is full, from 0.
    for (let i = 1; i <= this.ring.length; i++) yield this.ring[(this.next - i + this.ring.length) % this.ring.length];
  }

  get size(): number {
    return this.ring.length;
  }
}

/** The newest `limit` entries that pass the filter, oldest first: the order of a HAR. */
export function oldestOf(newestFirst: Iterable<Recorded>, filter: JournalFilter): Recorded[] {
  const out: Recorded[] = [];
  const limit = filter.limit ?? Infinity;
  for (const recorded of newestFirst) {
    if (out.length >= limit) break;
    if (matches(recorded, filter)) out.push(recorded);
  }
  return out.reverse();
}

export function matches(r: Recorded, f: JournalFilter): boolean {
  return (
    (f.operationId === undefined || r.operationId === f.operationId) &&
    (f.workspaceId === undefined || r.workspaceId === f.workspaceId) &&
    (f.method === undefined || r.method === f.method) &&
    (f.status === undefined || r.status === f.status)
  );
}

export function format(r: Shown): JournalEntry {
  const q = r.url.indexOf("?");
  return {
    id: String(r.seq),
    at: isoOf(r.atMs),
    method: r.method,
    path: pathOf(r.url),
    query: q === -1 ? "" : r.url.slice(q + 1),
    operationId: r.operationId,
    workspaceId: r.workspaceId,
    status: r.status,
    durationMs: Math.round(r.durationMs * 100) / 100,
    faultId: r.faultId,
    ...(r.source && { source: r.source }),
  };
}

/** What format() and entryJson() read of a recorded request. */
export type Shown = Pick<
  Recorded,
  "seq" | "atMs" | "method" | "url" | "operationId" | "workspaceId" | "status" | "durationMs" | "faultId" | "source"
>;

const quoted = (text: string | null) => (text === null ? "null" : JSON.stringify(text));

/**
 * `JSON.stringify(format(r))`, written directly: the event stream sends one per request, and this costs
 * a fraction of building the entry and then serializing it (journal.test.ts holds the two equal).
 */
export function entryJson(r: Shown): string {
  const q = r.url.indexOf("?");
  const path = q === -1 ? r.url : r.url.slice(0, q);
  const query = q === -1 ? "" : r.url.slice(q + 1);
  return `{"id":"${r.seq}","at":"${isoOf(r.atMs)}","method":${quoted(r.method)},"path":${quoted(path)},"query":${quoted(query)},"operationId":${quoted(r.operationId)},"workspaceId":${quoted(r.workspaceId)},"status":${r.status},"durationMs":${Math.round(r.durationMs * 100) / 100},"faultId":${quoted(r.faultId)}${r.source ? `,"source":${quoted(r.source)}` : ""}}`;
}

let isoSecond = Number.NaN;
let isoPrefix = "";

/** `new Date(ms).toISOString()`, with the date and time up to the second kept from the last call: most calls share it. */
export function isoOf(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== isoSecond) {
    isoSecond = second;
    isoPrefix = new Date(second * 1000).toISOString().slice(0, -4);
  }
  return `${isoPrefix}${String(ms - second * 1000).padStart(3, "0")}Z`;
}

/** A key sent in the query is refused, but it must not be kept either: redacted before it is stored. */
export function withoutSecrets(url: string): string {
  const q = url.indexOf("?");
  return q === -1 ? url : `${url.slice(0, q + 1)}${redactQuery(url.slice(q + 1))}`;
}

function redactQuery(query: string): string {
  // Most queries hold no secret name anywhere and no escapes (which could spell one): kept as they are.
  if (query.indexOf("%") === -1 && !SECRET_QUERY_NAME.test(query)) return query;
  return query
    .split("&")
    .map((pair) => {
      const name = decodeSafely(pair.split("=")[0]);
      return SECRET_QUERY_NAME.test(name) ? `${pair.split("=")[0]}=REDACTED` : pair;
    })
    .join("&");
}

function decodeSafely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

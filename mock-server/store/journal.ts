/**
 * The request journal: recent requests, newest first, in a bounded ring so a mock left running for
 * days does not grow. It records method, path and outcome only: never bodies or headers, which may
 * carry credentials.
 */
import { pathOf } from "../core/errors.js";
import type { AnswerSource } from "../core/exchange.js";

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
  add(entry: Omit<Recorded, "seq">): void | Promise<void>;
  list(filter?: JournalFilter): JournalEntry[] | Promise<JournalEntry[]>;
  count(filter?: JournalFilter): number | Promise<number>;
  clear(workspaceId?: string): void | Promise<void>;
}

export class Journal implements RequestJournal {
  private ring: Recorded[] = [];
  private next = 0;
  private seq = 0;

  constructor(readonly capacity: number) {}

  /** Formatting (time, path) waits until the journal is read; a secret in the query is redacted now. */
  add(entry: Omit<Recorded, "seq">): void {
    if (this.capacity <= 0) return;
    const recorded = entry as Recorded;
    recorded.url = withoutSecrets(recorded.url);
    recorded.seq = ++this.seq;
    if (this.ring.length < this.capacity) this.ring.push(recorded);
    else this.ring[this.next] = recorded;
    this.next = (this.next + 1) % this.capacity;
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

  /** Forgets every request, or one workspace's. */
  clear(workspaceId?: string): void {
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

export function matches(r: Recorded, f: JournalFilter): boolean {
  return (
    (f.operationId === undefined || r.operationId === f.operationId) &&
    (f.workspaceId === undefined || r.workspaceId === f.workspaceId) &&
    (f.method === undefined || r.method === f.method) &&
    (f.status === undefined || r.status === f.status)
  );
}

export function format(r: Recorded): JournalEntry {
  const q = r.url.indexOf("?");
  return {
    id: String(r.seq),
    at: new Date(r.atMs).toISOString(),
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

const SECRET_NAME = /key|token|secret|password|auth/i;

/** A key sent in the query is refused, but it must not be kept either: redacted before it is stored. */
export function withoutSecrets(url: string): string {
  const q = url.indexOf("?");
  return q === -1 ? url : `${url.slice(0, q + 1)}${redactQuery(url.slice(q + 1))}`;
}

function redactQuery(query: string): string {
  // Most queries hold no secret name anywhere and no escapes (which could spell one): kept as they are.
  if (query.indexOf("%") === -1 && !SECRET_NAME.test(query)) return query;
  return query
    .split("&")
    .map((pair) => {
      const name = decodeSafely(pair.split("=")[0]);
      return SECRET_NAME.test(name) ? `${pair.split("=")[0]}=REDACTED` : pair;
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

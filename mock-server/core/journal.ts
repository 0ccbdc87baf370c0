/**
 * The request journal: recent requests, newest first, in a bounded ring so a mock left running for
 * days does not grow. It records method, path and outcome only: never bodies or headers, which may
 * carry credentials.
 */
import { pathOf } from "./errors.js";

export interface JournalEntry {
  id: string;
  at: string;
  method: string;
  path: string;
  query: string;
  workspaceId: string | null;
  status: number;
  durationMs: number;
}

/** What is kept per request: raw values, formatted only when the journal is read. */
interface Recorded {
  seq: number;
  atMs: number;
  method: string;
  url: string;
  workspaceId: string | null;
  status: number;
  durationMs: number;
}

export class Journal {
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

  /** Newest first. */
  list(): JournalEntry[] {
    // Until the ring is full, next === length and the first slice is empty.
    return [...this.ring.slice(this.next), ...this.ring.slice(0, this.next)].reverse().map(format);
  }

  clear(): void {
    this.ring = [];
    this.next = 0;
  }

  get size(): number {
    return this.ring.length;
  }
}

function format(r: Recorded): JournalEntry {
  const q = r.url.indexOf("?");
  return {
    id: String(r.seq),
    at: new Date(r.atMs).toISOString(),
    method: r.method,
    path: pathOf(r.url),
    query: q === -1 ? "" : r.url.slice(q + 1),
    workspaceId: r.workspaceId,
    status: r.status,
    durationMs: Math.round(r.durationMs * 100) / 100,
  };
}

const SECRET_NAME = /key|token|secret|password|auth/i;

/** A key sent in the query is refused, but it must not be kept either: redacted before it is stored. */
function withoutSecrets(url: string): string {
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

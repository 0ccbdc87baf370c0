/**
 * The request journal: recent requests, newest first, in a bounded ring so a mock left running for
 * days does not grow. It records method, path and outcome only: never bodies or headers, which may
 * carry credentials.
 */
import type { RequestHandler } from "express";
import type { Clock } from "../clock.js";
import { requestPath } from "./errors.js";

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

export class Journal {
  private ring: JournalEntry[] = [];
  private next = 0;
  private seq = 0;

  constructor(readonly capacity: number) {}

  add(entry: Omit<JournalEntry, "id">): void {
    if (this.capacity <= 0) return;
    const full = { id: String(++this.seq), ...entry };
    if (this.ring.length < this.capacity) this.ring.push(full);
    else this.ring[this.next] = full;
    this.next = (this.next + 1) % this.capacity;
  }

  /** Newest first. */
  list(): JournalEntry[] {
    // Until the ring is full, next === length and the first slice is empty.
    return [...this.ring.slice(this.next), ...this.ring.slice(0, this.next)].reverse();
  }

  clear(): void {
    this.ring = [];
    this.next = 0;
  }

  get size(): number {
    return this.ring.length;
  }
}

export function recordRequests(journal: Journal, clock: Clock): RequestHandler {
  return function journalRequest(req, res, next) {
    const started = performance.now();
    const at = clock.iso();
    res.on("finish", () => {
      const url = req.originalUrl;
      const q = url.indexOf("?");
      journal.add({
        at,
        method: req.method,
        path: requestPath(req),
        query: q === -1 ? "" : redactQuery(url.slice(q + 1)),
        workspaceId: req.workspace?.workspaceId ?? null,
        status: res.statusCode,
        durationMs: Math.round((performance.now() - started) * 100) / 100,
      });
    });
    next();
  };
}

const SECRET_NAME = /key|token|secret|password|auth/i;

/** A key sent in the query is refused, but it must not be kept either. */
function redactQuery(query: string): string {
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

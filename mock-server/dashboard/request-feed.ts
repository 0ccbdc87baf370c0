/**
 * The requests the page holds: the newest `capacity` journal entries, from the first load and the live
 * stream, each once. At thousands of requests a second adding must stay cheap: entries are appended
 * (oldest first) and the array is cut back to `capacity` only once it has doubled; the newest-first
 * list the view reads is built at most once per change it renders, not per event.
 */
import type { JournalEntry } from "./api.js";

export const FEED_CAPACITY = 500;

/** Journal ids are the journal's sequence numbers: a larger one is a later request. */
const order = (a: JournalEntry, b: JournalEntry) => Number(a.id) - Number(b.id);

export class RequestFeed {
  private items: JournalEntry[] = [];
  private ids = new Set<string>();
  private newest: JournalEntry[] | undefined = [];
  private readonly listeners = new Set<() => void>();
  /** Bumped on every change: the view renders again when it moved. */
  version = 0;

  constructor(readonly capacity = FEED_CAPACITY) {}

  add(entry: JournalEntry): void {
    if (this.ids.has(entry.id)) return;
    this.items.push(entry);
    this.ids.add(entry.id);
    if (this.items.length >= this.capacity * 2) this.trim();
    this.changed();
  }

  /** Entries loaded from GET /__mock/requests (any order) joined with those already here. */
  merge(entries: readonly JournalEntry[]): void {
    for (const entry of entries)
      if (!this.ids.has(entry.id)) {
        this.items.push(entry);
        this.ids.add(entry.id);
      }
    this.items.sort(order);
    this.trim();
    this.changed();
  }

  /** Forget everything (the journal was cleared, or the stream dropped events: load again). */
  clear(): void {
    this.items = [];
    this.ids.clear();
    this.changed();
  }

  /** The newest `capacity` entries, newest first. */
  list(): readonly JournalEntry[] {
    if (!this.newest) this.newest = this.items.slice(-this.capacity).reverse();
    return this.newest;
  }

  /** Told of every change (the page draws again soon after); returns the way to stop. */
  listen(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  private trim(): void {
    if (this.items.length <= this.capacity) return;
    this.items = this.items.slice(-this.capacity);
    this.ids = new Set(this.items.map((e) => e.id));
  }

  private changed(): void {
    this.newest = undefined;
    this.version++;
    for (const listener of this.listeners) listener();
  }
}

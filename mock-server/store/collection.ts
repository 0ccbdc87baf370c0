import { StoreError } from "../core/errors.js";
import type { PageQuery, PageResult } from "../core/pagination.js";

export { StoreError };
export type { PageQuery, PageResult };

/**
 * The one store abstraction: an insertion-ordered collection of records with an id index and the
 * secondary indexes that list filters need. A page costs O(page size): every index bucket keeps its
 * entries in insertion order, so page p of "newest first" is a slice counted from the bucket's end.
 */

interface Entry<T> {
  seq: number;
  value: T;
}

/** How to read a filterable value off a record (a filter may look inside, e.g. `agent.agentId`). */
export type KeyReaders<T> = Record<string, (value: T) => string | boolean | null | undefined>;

export interface CollectionOptions<T> {
  idOf: (value: T) => string;
  keys?: KeyReaders<T>;
  /** Each entry is a set of key names answered by one index (a filter uses exactly one). */
  indexes?: string[][];
}

interface Index<T> {
  readers: ((value: T) => unknown)[];
  buckets: Map<string, Entry<T>[]>;
}

export class Collection<T extends object> {
  private readonly byId = new Map<string, Entry<T>>();
  private entries: Entry<T>[] = [];
  private readonly indexes = new Map<string, Index<T>>();
  private nextSeq = 0;
  readonly idOf: (value: T) => string;

  constructor(
    readonly name: string,
    options: CollectionOptions<T>,
    /**
     * Told of each record about to change (create, replace, delete, clear), before it changes: the
     * workspace's change tracker (store/changes.ts) gets it from here. None in memory.
     */
    private readonly changed?: (id: string) => void,
  ) {
    this.idOf = options.idOf;
    for (const fields of options.indexes ?? []) {
      const sorted = [...fields].sort();
      const readers = sorted.map((f) => {
        const read = options.keys?.[f];
        if (!read) throw new Error(`${name}: index on unknown key ${f}`);
        return read;
      });
      this.indexes.set(sorted.join("+"), { readers, buckets: new Map() });
    }
  }

  get size(): number {
    return this.entries.length;
  }

  get(id: string): T | undefined {
    return this.byId.get(id)?.value;
  }

  /** Like get, but a missing id is a NOT_FOUND store error (mapped to 404 once, by the error handler). */
  require(id: string, label: string): T {
    const found = this.get(id);
    if (!found) throw new StoreError("NOT_FOUND", `${label} not found: ${id}`);
    return found;
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  create(value: T): T {
    const id = this.idOf(value);
    if (this.byId.has(id)) throw new StoreError("CONFLICT", `${this.name} already holds a record with id ${id}`);
    this.changed?.(id);
    const entry = { seq: this.nextSeq++, value };
    this.byId.set(id, entry);
    this.entries.push(entry);
    for (const index of this.indexes.values()) bucketOf(index, value).push(entry);
    return value;
  }

  /** Replaces the record with `next` (same id); index buckets follow the changed fields. */
  replace(id: string, next: T): T {
    const entry = this.byId.get(id);
    if (!entry) throw new StoreError("NOT_FOUND", `${this.name} has no record with id ${id}`);
    this.changed?.(id);
    for (const index of this.indexes.values()) {
      const before = keyOf(index, entry.value);
      const after = keyOf(index, next);
      if (before !== after) {
        removeEntry(index.buckets.get(before), entry);
        insertEntry(bucketOf(index, next), entry);
      }
    }
    entry.value = next;
    return next;
  }

  update(id: string, change: (current: T) => T): T {
    const current = this.get(id);
    if (!current) throw new StoreError("NOT_FOUND", `${this.name} has no record with id ${id}`);
    return this.replace(id, change(current));
  }

  delete(id: string): boolean {
    const entry = this.byId.get(id);
    if (!entry) return false;
    this.changed?.(id);
    this.byId.delete(id);
    removeEntry(this.entries, entry);
    for (const index of this.indexes.values()) removeEntry(index.buckets.get(keyOf(index, entry.value)), entry);
    return true;
  }

  clear(): void {
    if (this.changed) for (const id of this.byId.keys()) this.changed(id);
    this.byId.clear();
    this.entries = [];
    for (const index of this.indexes.values()) index.buckets.clear();
  }

  /** A record with its place in insertion order (what a store writes and reads back). */
  entryOf(id: string): { seq: number; value: T } | undefined {
    const entry = this.byId.get(id);
    return entry && { seq: entry.seq, value: entry.value };
  }

  /**
   * Puts a record at its place `seq` in insertion order, or removes it (`value` undefined), without
   * telling `changed`: a store applies what another process wrote, or undoes a write, this way.
   */
  put(id: string, entry: { seq: number; value: T } | undefined): void {
    const current = this.byId.get(id);
    if (current) {
      this.byId.delete(id);
      removeEntry(this.entries, current);
      for (const index of this.indexes.values()) removeEntry(index.buckets.get(keyOf(index, current.value)), current);
    }
    if (!entry) return;
    const added = { seq: entry.seq, value: entry.value };
    this.byId.set(id, added);
    insertEntry(this.entries, added);
    for (const index of this.indexes.values()) insertEntry(bucketOf(index, added.value), added);
    if (added.seq >= this.nextSeq) this.nextSeq = added.seq + 1;
  }

  /** The ids of every record, in no particular order. */
  ids(): IterableIterator<string> {
    return this.byId.keys();
  }

  /** Every record, oldest first. */
  all(): T[] {
    return this.entries.map((e) => e.value);
  }

  count(where?: PageQuery["where"]): number {
    return this.select(where).length;
  }

  page(query: PageQuery): PageResult<T> {
    const list = this.select(query.where);
    const total = list.length;
    const start = query.page * query.size;
    const items: T[] = [];
    for (let i = start; i < Math.min(total, start + query.size); i++) {
      const entry = query.order === "newest" ? list[total - 1 - i] : list[i];
      items.push(entry.value);
    }
    return { items, total };
  }

  private select(where: PageQuery["where"] = {}): Entry<T>[] {
    const fields = Object.keys(where)
      .filter((k) => where[k] !== undefined)
      .sort();
    if (fields.length === 0) return this.entries;
    const name = fields.join("+");
    const index = this.indexes.get(name);
    if (!index) throw new Error(`${this.name} has no index on ${name}`);
    return index.buckets.get(JSON.stringify(fields.map((f) => String(where[f])))) ?? [];
  }
}

/** Readers are kept in sorted key order, so a bucket key and a query key line up. */
function keyOf<T>(index: Index<T>, value: T): string {
  return JSON.stringify(index.readers.map((read) => String(read(value))));
}

function bucketOf<T>(index: Index<T>, value: T): Entry<T>[] {
  const key = keyOf(index, value);
  let bucket = index.buckets.get(key);
  if (!bucket) index.buckets.set(key, (bucket = []));
  return bucket;
}

/** Binary search by seq: buckets are sorted by insertion sequence. */
function positionOf<T>(list: Entry<T>[], seq: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid].seq < seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function removeEntry<T>(list: Entry<T>[] | undefined, entry: Entry<T>): void {
  if (!list) return;
  const at = positionOf(list, entry.seq);
  if (list[at] === entry) list.splice(at, 1);
}

function insertEntry<T>(list: Entry<T>[], entry: Entry<T>): void {
  list.splice(positionOf(list, entry.seq), 0, entry);
}

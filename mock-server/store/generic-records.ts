/**
 * The records the generic layer keeps (mock-server/generic/): one insertion-ordered Collection per
 * collection it infers from the document (`pets`, `orders`), made on first use. Unlike the reference's
 * collections (records.ts), their names and id fields come from whatever document the mock serves, so
 * they are not typed and not known when the workspace is made: a store may put back a record of a
 * collection before the generic layer has asked for it (another process's write), and the id field is
 * given by whoever asks (`collection(name, idField)`).
 */
import { Collection } from "./collection.js";

/** A record of a generic collection: an object as the document's schema describes it. */
export type GenericRecord = Record<string, unknown>;

interface Kept {
  collection: Collection<GenericRecord>;
  /** The field whose value is each record's id; "id" until the generic layer names it. */
  key: { field: string };
}

export class GenericCollections {
  private readonly byName = new Map<string, Kept>();

  /** `changed`: told of each record about to change (the workspace's tracker); none in memory. */
  constructor(private readonly changed?: (collection: string, id: string) => void) {}

  /**
   * The collection `name` (made empty on first use). `idField` names each record's id (ids are
   * compared as strings: an integer id 7 is the key "7").
   */
  collection(name: string, idField?: string): Collection<GenericRecord> {
    if (name.includes(":")) throw new Error(`a generic collection name has no colon: ${name}`);
    let kept = this.byName.get(name);
    if (!kept) {
      const key = { field: idField ?? "id" };
      const changed = this.changed;
      const collection = new Collection<GenericRecord>(
        name,
        { idOf: (record) => String(record[key.field]) },
        changed && ((id) => changed(name, id)),
      );
      this.byName.set(name, (kept = { collection, key }));
    } else if (idField !== undefined) kept.key.field = idField;
    return kept.collection;
  }

  /** The collections there are, in the order they were first used. */
  names(): string[] {
    return [...this.byName.keys()];
  }

  /** Every record of every collection as [collection, id] (a workspace written whole). */
  *ids(): Generator<[string, string]> {
    for (const [name, { collection }] of this.byName) for (const id of collection.ids()) yield [name, id];
  }

  /** Every record of every collection, oldest first, as [id, record] pairs (the state file's). */
  export(): Record<string, [string, GenericRecord][]> {
    return Object.fromEntries(
      [...this.byName].map(([name, { collection }]) => [
        name,
        collection.all().map((record) => [collection.idOf(record), record] as [string, GenericRecord]),
      ]),
    );
  }

  /** Adds the records of a state file's collection (as `export` gives them), told to `changed` like any write. */
  restore(name: string, records: [string, GenericRecord][]): void {
    const collection = this.collection(name);
    for (const [seq, [id, value]] of records.entries()) {
      this.changed?.(name, id);
      collection.put(id, { seq, value });
    }
  }

  /** Empties every collection (told to `changed`, record by record). */
  clear(): void {
    for (const { collection } of this.byName.values()) collection.clear();
  }
}

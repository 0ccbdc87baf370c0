/**
 * The JSON of read replies, with the JSON of each record kept by object identity: serialising the
 * same stored records for every page read was the largest cost of a list request. Stored records are
 * never changed in place (Collection.replace swaps in a new object), so an object's JSON stays right
 * for as long as the object is served. The cache is bounded; the oldest entries go first.
 * The output is byte for byte what JSON.stringify(body) gives. Each core keeps its own cache
 * (ReplyJson), so mocks in one process neither share nor evict each other's entries.
 */

const CAPACITY = 10_000;

/** JSON text and its UTF-8 length: the door needs the length for Content-Length, and measuring a page's bytes on every read was a cost of its own. */
export interface JsonText {
  json: string;
  bytes: number;
}

/** UTF-8 length of JSON text (JSON.stringify leaves no lone surrogate, so a high surrogate starts a pair). */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) bytes += 1;
    else if (c >= 0xd800 && c <= 0xdbff) (bytes += 2), i++;
    else bytes += 2;
  }
  return bytes;
}

const measured = (json: string): JsonText => ({ json, bytes: utf8Length(json) });

const isRecord = (value: unknown): value is object =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The JSON of read replies, with the JSON of records kept by object identity (at most `capacity`). */
export class ReplyJson {
  private readonly cache = new Map<object, JsonText>();

  constructor(private readonly capacity = CAPACITY) {}

  /** A 2.1 page (data first, as wrapPage builds it) or a single record; anything else as JSON.stringify has it. */
  read(body: unknown): JsonText {
    if (!isRecord(body)) return measured(JSON.stringify(body));
    const keys = Object.keys(body);
    const data = (body as { data?: unknown }).data;
    if (keys[0] !== "data" || !Array.isArray(data)) return this.record(body);
    if (keys.length === 1 || !data.every(isRecord)) return measured(JSON.stringify(body));
    const { data: _data, ...rest } = body as Record<string, unknown>;
    const records = data.map((record) => this.record(record));
    const tail = measured(JSON.stringify(rest).slice(1));
    // `{"data":[` + records joined by commas + `],` + tail: the framing is ASCII.
    let bytes = 11 + Math.max(records.length - 1, 0) + tail.bytes;
    for (const record of records) bytes += record.bytes;
    return { json: `{"data":[${records.map((r) => r.json).join(",")}],${tail.json}`, bytes };
  }

  private record(value: object): JsonText {
    let text = this.cache.get(value);
    if (text === undefined) {
      text = measured(JSON.stringify(value));
      if (this.cache.size >= this.capacity) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(value, text);
    }
    return text;
  }
}

/**
 * The JSON of read replies, with the JSON of each record kept by object identity: serialising the
 * same stored records for every page read was the largest cost of a list request. Stored records are
 * never changed in place (Collection.replace swaps in a new object), so an object's JSON stays right
 * for as long as the object is served. The cache is bounded; the oldest entries go first.
 * The output is byte for byte what JSON.stringify(body) gives.
 * The core writes every JSON answer through here: successes, the control plane and errors alike.
 */

const CAPACITY = 10_000;
const cache = new Map<object, string>();

function recordJson(value: object): string {
  let json = cache.get(value);
  if (json === undefined) {
    json = JSON.stringify(value);
    if (cache.size >= CAPACITY) cache.delete(cache.keys().next().value!);
    cache.set(value, json);
  }
  return json;
}

const isRecord = (value: unknown): value is object => typeof value === "object" && value !== null && !Array.isArray(value);

/** A 2.1 page (data first, as wrapPage builds it) or a single record; anything else as JSON.stringify has it. */
export function readReplyJson(body: unknown): string {
  if (!isRecord(body)) return JSON.stringify(body);
  const keys = Object.keys(body);
  const data = (body as { data?: unknown }).data;
  if (keys[0] !== "data" || !Array.isArray(data)) return recordJson(body);
  if (keys.length === 1 || !data.every(isRecord)) return JSON.stringify(body);
  const { data: _data, ...rest } = body as Record<string, unknown>;
  return `{"data":[${data.map(recordJson).join(",")}],${JSON.stringify(rest).slice(1)}`;
}

/**
 * Hostile values, as JSON text or plain strings: what half-built UIs and attackers send. Each is an
 * arbitrary, so a failure shrinks (a 2 MB string to the shortest length that still fails).
 */
import fc from "fast-check";

/** Characters that break naive code: controls, separators, BOM, lone surrogates, RTL override, combining marks. */
const ODD_UNITS = [
  "\u0000",
  "\u0001",
  "\u0008",
  "\t",
  "\n",
  "\r",
  "\u001b",
  "\u001f",
  "\u007f",
  "\u0085",
  "\u00a0",
  "\u2028",
  "\u2029",
  "\ufeff",
  "\ud800",
  "\udfff",
  "\u202e",
  "\u0301",
  "\ufffd",
  "😀",
  "👩‍👩‍👧",
  "é",
  "ß",
  "中",
  "ـ",
  '"',
  "\\",
  "'",
  "<",
  ">",
  "&",
  "%",
  "{{",
  "}}",
  "${",
  "/",
  "..",
  "a",
  " ",
];

export const oddString = fc.oneof(
  fc.string({ unit: fc.constantFrom(...ODD_UNITS), minLength: 1, maxLength: 40 }),
  fc.string({ unit: "binary", minLength: 1, maxLength: 40 }),
  fc.constantFrom(
    "",
    " ",
    "null",
    "undefined",
    "NaN",
    "true",
    "0",
    "-1",
    "[object Object]",
    "__proto__",
    "constructor",
    "toString",
    "hasOwnProperty",
  ),
);

/** 10 k to 2 M characters: past every field bound, and past the 1 MB body limit at the top end. */
export const hugeString = fc
  .tuple(fc.integer({ min: 10_000, max: 2_000_000 }), fc.constantFrom("x", "é", "😀", "\u0000", "ab"))
  .map(([n, unit]) => unit.repeat(Math.ceil(n / unit.length)));

/** Numbers JSON allows but JavaScript bends: overflow to Infinity, underflow, beyond 2^53, -0, past int32. */
export const oddNumberText = fc.constantFrom(
  "1e400",
  "-1e400",
  "1e-400",
  "-0",
  "123456789012345678901234567890",
  "9007199254740993",
  "2147483648",
  "-2147483649",
  "0.1e1",
  "1E2",
  "4.9e-324",
);

/** Nesting 10 to 100 k deep, as arrays or objects. */
export const deepText = fc
  .tuple(fc.integer({ min: 10, max: 100_000 }), fc.boolean())
  .map(([depth, arrays]) =>
    arrays ? "[".repeat(depth) + "]".repeat(depth) : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`,
  );

/** Keys that pollute prototypes when code merges objects naively. */
export const protoText = fc.constantFrom(
  '{"__proto__":{"polluted":"yes"}}',
  '{"constructor":{"prototype":{"polluted":"yes"}}}',
  '{"prototype":{"polluted":"yes"}}',
  '{"__proto__":null}',
  '{"__proto__":[]}',
  '{"toString":"x","valueOf":1,"hasOwnProperty":"x"}',
);

/** Any hostile JSON value, as text (some cannot be written by JSON.stringify). */
export const hostileJsonText = fc.oneof(
  oddString.map((s) => JSON.stringify(s)),
  hugeString.map((s) => JSON.stringify(s)),
  { arbitrary: oddNumberText, weight: 2 },
  deepText,
  protoText,
  fc.constantFrom("null", "true", "[]", "{}", '[""]', "[null]", '{"":""}'),
);

/** Bodies that are not JSON, or not only JSON (raw bytes include invalid UTF-8). */
export const malformedJson: fc.Arbitrary<string | Uint8Array> = fc.oneof(
  fc.constantFrom(
    "{",
    "}",
    "[",
    '{"a":}',
    "{'a':1}",
    '{"a":1,}',
    "[1,]",
    "nul",
    "NaN",
    "undefined",
    '{"a":1}{"b":2}',
    '{"a":1} x',
    '{"a":"\u0001"}',
    '{"a":"\\x41"}',
    '{"a":"\\u12"}',
    "{}\u0000",
    '{"a":01}',
    '{"a":+1}',
    '{"a":.5}',
    '{"a":Infinity}',
    "{a:1}",
    '"just a string"',
    "12",
    "true",
    "   ",
    "\n",
  ),
  fc.string({ unit: "binary", minLength: 1, maxLength: 200 }),
  fc.uint8Array({ minLength: 1, maxLength: 200 }),
);

/** A valid JSON text cut short at some point. */
export function truncated(text: string): fc.Arbitrary<string> {
  return text.length < 2 ? fc.constant("{") : fc.integer({ min: 1, max: text.length - 1 }).map((n) => text.slice(0, n));
}

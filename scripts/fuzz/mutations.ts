/**
 * Hostile mutations of a request the spec generator made: the body (malformed JSON, hostile values,
 * wrong or missing content types and encodings), the query (duplicates, hostile values, prototype
 * keys, broken syntax), the path (overlong and broken ids), the method and the headers.
 */
import fc from "fast-check";
import type { FuzzCase } from "./case.js";
import { encodeAny, headerSafe, setHeader } from "./case.js";
import { hostileJsonText, hugeString, malformedJson, oddNumberText, oddString, truncated } from "./hostile.js";

/** Body fields of the operation: all of them, and those holding objects or arrays (where nesting goes). */
export interface BodyFields {
  all: string[];
  containers: string[];
}

export type Mutation = (base: FuzzCase, fields: BodyFields) => fc.Arbitrary<FuzzCase>;

const mutate = (
  base: FuzzCase,
  kind: string,
  expect: FuzzCase["expect"],
  why: string,
  wire: Partial<FuzzCase["wire"]>,
): FuzzCase => ({
  ...base,
  kind,
  expect,
  why,
  wire: { ...base.wire, ...wire },
});

const PLACEHOLDER = "\u0001FUZZ\u0001";

/** The body as JSON text with `text` (raw JSON, maybe not writable by JSON.stringify) under `field`. */
function splice(body: string | undefined, field: string, text: string): string {
  let object: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(body ?? "{}");
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) object = parsed;
  } catch {
    /* start from an empty object */
  }
  return JSON.stringify({ ...object, [field]: PLACEHOLDER }).replace(JSON.stringify(PLACEHOLDER), text);
}

const NOT_JSON_TYPES = [
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/xml",
  "application/octet-stream",
];
const ODD_JSON_TYPES = [
  "application/json; charset=utf-16",
  "application/json; charset=iso-8859-1",
  "application/json; charset=bogus",
  "APPLICATION/JSON",
  "application/vnd.custom+json",
  "application/json-patch+json",
  "application/json, text/plain",
  ";",
  "application/",
  "*/*",
  "json",
];

export const bodyMutations: Mutation[] = [
  (base) =>
    fc.oneof(malformedJson, truncated(typeof base.wire.body === "string" ? base.wire.body : "{}")).map((body) =>
      mutate(base, "malformed-json", "reject", "a body that is not JSON", {
        body,
        headers: setHeader(base.wire.headers, "Content-Type", "application/json"),
      }),
    ),
  (base, fields) =>
    fc
      .tuple(fc.constantFrom(...fields.all, "__proto__", "constructor", "prototype", "zzExtra"), hostileJsonText)
      .map(([field, text]) =>
        mutate(base, "hostile-value", "any", `a hostile value in ${field}`, {
          body: splice(typeof base.wire.body === "string" ? base.wire.body : undefined, field, text),
          headers: setHeader(base.wire.headers, "Content-Type", "application/json"),
        }),
      ),
  (base, fields) =>
    fc
      .tuple(
        fc.constantFrom(...(fields.containers.length > 0 ? fields.containers : fields.all)),
        fc.oneof(oddString, fc.constantFrom("__proto__", "constructor", "prototype")),
        fc.oneof({ arbitrary: oddNumberText, weight: 2 }, { arbitrary: hostileJsonText, weight: 3 }),
        fc.boolean(),
      )
      .map(([field, key, text, inArray]) =>
        mutate(base, "hostile-nested", "any", `a hostile value inside ${field}`, {
          body: splice(
            typeof base.wire.body === "string" ? base.wire.body : undefined,
            field,
            inArray ? `[${text}]` : `{${JSON.stringify(key)}:${text}}`,
          ),
          headers: setHeader(base.wire.headers, "Content-Type", "application/json"),
        }),
      ),
  (base) =>
    hostileJsonText.map((body) =>
      mutate(base, "hostile-body", "any", "a hostile JSON value as the whole body", {
        body,
        headers: setHeader(base.wire.headers, "Content-Type", "application/json"),
      }),
    ),
  (base) =>
    fc
      .constantFrom(null, ...NOT_JSON_TYPES)
      .map((type) =>
        mutate(
          base,
          "content-type",
          base.wire.body === undefined ? "any" : "reject",
          `a JSON body sent as ${type ?? "no content type"}`,
          { body: base.wire.body ?? "{}", headers: setHeader(base.wire.headers, "Content-Type", type) },
        ),
      ),
  (base) =>
    fc.constantFrom(...ODD_JSON_TYPES).map((type) =>
      mutate(base, "content-type", "any", `a JSON body sent as ${type}`, {
        body: base.wire.body ?? "{}",
        headers: setHeader(base.wire.headers, "Content-Type", type),
      }),
    ),
  (base) =>
    fc.constantFrom("gzip", "deflate", "br", "compress", "gzip, gzip", "bogus", "identity").map((encoding) =>
      mutate(base, "content-encoding", "any", `a plain body labelled Content-Encoding: ${encoding}`, {
        body: base.wire.body ?? "{}",
        headers: [...setHeader(base.wire.headers, "Content-Type", "application/json"), ["Content-Encoding", encoding]],
      }),
    ),
  (base) => fc.constant(mutate(base, "chunked", base.expect, `${base.why}, sent chunked`, { chunked: true })),
  (base) =>
    fc.constantFrom("", " ", "\n").map((body) =>
      mutate(base, "empty-body", "any", "an empty JSON body", {
        body,
        headers: setHeader(base.wire.headers, "Content-Type", "application/json"),
      }),
    ),
];

/** Operations without a body get one anyway: it must be ignored or refused, never crash. */
export const strayBody: Mutation = (base) =>
  fc
    .tuple(
      fc.oneof(malformedJson, hostileJsonText),
      fc.constantFrom("application/json", "text/plain", "multipart/form-data; boundary=z"),
    )
    .map(([body, type]) =>
      mutate(base, "stray-body", "any", `a ${type} body on ${base.wire.method}`, {
        body,
        headers: setHeader(base.wire.headers, "Content-Type", type),
      }),
    );

function withQuery(target: string, extra: string): string {
  return target + (target.includes("?") ? "&" : "?") + extra;
}

const QUERY_GARBAGE = [
  "",
  "&&&",
  "page",
  "=1",
  "page=%",
  "page=%ZZ",
  "page=%00",
  "size=1%00",
  "a[]=1",
  "page[]=1",
  "page=1;size=2",
  "page=+1",
  "page=0x10",
  "page=1e1",
  "size=Infinity",
  "size=NaN",
  "active=TRUE",
  "status=ended%00",
  "__proto__=x",
  "constructor=x",
  "prototype=x",
  "__proto__[polluted]=yes",
  "constructor[prototype][polluted]=yes",
  "toString=1",
  "hasOwnProperty=1",
  "page=-0",
  "size=%2B1",
];

export const queryMutations: Mutation[] = [
  (base) =>
    fc
      .tuple(
        fc.constantFrom("page", "size", "status", "active", "agentId", "batchId"),
        fc.array(fc.oneof(fc.constantFrom("0", "1", "5", "ended", "true", "x"), oddString), {
          minLength: 2,
          maxLength: 3,
        }),
      )
      .map(([name, values]) =>
        mutate(base, "duplicate-query", "any", `${name} given ${values.length} times`, {
          target: withQuery(base.wire.target, values.map((v) => `${name}=${encodeAny(v)}`).join("&")),
        }),
      ),
  (base) =>
    fc
      .tuple(
        fc.constantFrom("page", "size", "status", "active", "agentId", "batchId", "zz"),
        fc.oneof(
          oddString,
          hugeString.map((s) => s.slice(0, 12_000)),
        ),
      )
      .map(([name, value]) =>
        mutate(base, "hostile-query", "any", `a hostile ${name}`, {
          target: withQuery(base.wire.target.split("?")[0], `${name}=${encodeAny(value)}`),
        }),
      ),
  (base) =>
    fc
      .constantFrom(...QUERY_GARBAGE)
      .map((q) => mutate(base, "query-syntax", "any", `query "${q}"`, { target: withQuery(base.wire.target, q) })),
];

const ID_GARBAGE = [
  "%",
  "%G1",
  "%E0%A4",
  "%C0%AF",
  "%00",
  "%0A",
  "%2F",
  "..",
  ".",
  "%2e%2e",
  "a%2Fb",
  "%FF%FE",
  "%20",
  "+",
  "%2B14155550123",
  "14155550123",
  "%u0041",
  "a;b",
  "a,b",
  "*",
];

/** The id segment of a path with a parameter: too long, odd characters, broken percent-encoding. */
export const idMutations: Mutation[] = [
  (base) =>
    fc.integer({ min: 129, max: 15_000 }).map((n) =>
      mutate(base, "overlong-id", "any", `an id of ${n} characters`, {
        target: replaceLastSegment(base.wire.target, "a".repeat(n)),
      }),
    ),
  (base) =>
    oddString.map((s) =>
      mutate(base, "odd-id", "any", "an id of odd characters", {
        target: replaceLastSegment(base.wire.target, encodeAny(s)),
      }),
    ),
  (base) =>
    fc
      .constantFrom(...ID_GARBAGE)
      .map((s) =>
        mutate(base, "broken-id", "any", `id segment "${s}"`, { target: replaceLastSegment(base.wire.target, s) }),
      ),
];

/** Any path: a trailing or doubled slash, another case, an extra or dot segment, no version. */
export const pathShapeMutation: Mutation = (base) =>
  fc
    .constantFrom("trailing-slash", "double-slash", "upper-case", "extra-segment", "dot-segment", "no-version")
    .map((shape) => mutate(base, "path-shape", "any", shape, { target: reshape(base.wire.target, shape) }));

function replaceLastSegment(target: string, segment: string): string {
  const [path, query] = target.split("?");
  const parts = path.split("/");
  parts[parts.length - 1] = segment;
  return parts.join("/") + (query !== undefined ? `?${query}` : "");
}

function reshape(target: string, shape: string): string {
  const [path, query] = target.split("?");
  const q = query !== undefined ? `?${query}` : "";
  switch (shape) {
    case "trailing-slash":
      return `${path}/${q}`;
    case "double-slash":
      return `${path.replace("/v1/", "/v1//")}${q}`;
    case "upper-case":
      return `${path.toUpperCase()}${q}`;
    case "extra-segment":
      return `${path}/extra${q}`;
    case "dot-segment":
      return `${path}/../agents${q}`;
    default:
      return `${path.replace("/v1", "")}${q}`;
  }
}

export const methodMutation: Mutation = (base) =>
  fc
    .constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD", "TRACE", "FOO", "PROPFIND", "get")
    .filter((m) => m !== base.wire.method)
    .map((method) => mutate(base, "method", "any", `${method} instead of ${base.wire.method}`, { method }));

const PREFER = [
  "code=abc",
  "code=999",
  "code=404",
  "code=",
  "example=nope",
  "dynamic=true",
  "dynamic=false",
  "delay=-1",
  "delay=abc",
  "delay=0",
  "code=400, delay=1",
  ";;",
  "example=",
];

export const headerMutations: Mutation[] = [
  (base) =>
    fc
      .constantFrom<[string | null, string]>(
        [null, "no key"],
        ["", "an empty key"],
        ["wrong-key", "a wrong key"],
        ["$upper", "the key in upper case"],
        ["$padded", "the key with spaces around it"],
      )
      .map(([key, why]) => mutate(base, "auth", key === "$padded" ? "any" : "reject", why, { key })),
  (base) =>
    fc.constant(
      mutate(base, "auth", "reject", "the key twice", { headers: [...base.wire.headers, ["X-API-Key", "wrong-key"]] }),
    ),
  (base) =>
    fc.constant(
      mutate(base, "auth", "reject", "the key in the query only", {
        key: null,
        target: withQuery(base.wire.target, "api_key=mock-api-key&X-API-Key=mock-api-key"),
      }),
    ),
  (base) =>
    fc
      .constantFrom("text/html", "application/xml", "*/*", "", "garbage/;;;", "application/json;q=0")
      .map((accept) =>
        mutate(base, "accept", "any", `Accept: ${accept}`, { headers: setHeader(base.wire.headers, "Accept", accept) }),
      ),
  (base) =>
    fc
      .tuple(
        fc.constantFrom("X-Request-Id", "Prefer", "Origin", "Cookie", "Authorization", "Host"),
        fc.oneof(oddString, fc.constantFrom(...PREFER)),
      )
      .map(([name, value]) =>
        mutate(base, "odd-header", "any", `${name}: odd`, {
          headers: setHeader(base.wire.headers, name, headerSafe(value)),
        }),
      ),
  (base) =>
    fc.integer({ min: 17_000, max: 40_000 }).map((n) =>
      mutate(base, "huge-header", "reject", `a header of ${n} bytes`, {
        headers: [...base.wire.headers, ["X-Pad", "p".repeat(n)]],
      }),
    ),
];

/**
 * Normalisers: what an answer shows about a target's behaviour, with everything that depends on the
 * data it holds taken out. Two targets holding different records but behaving alike give equal
 * results here; that is what lets parity report zero differences between them. Pure functions.
 */
import { STATUS_CODES } from "node:http";
import { STATUS_TEXT } from "../lib/spec.js";
import type { Json } from "./types.js";

type Record_ = Record<string, Json>;

const isObject = (v: unknown): v is Record_ => Boolean(v) && typeof v === "object" && !Array.isArray(v);

/** The 2.2 error body's fields; anything else in an error body is listed as an extra field. */
export const ERROR_FIELDS = ["timestamp", "status", "error", "message", "path", "validationErrors"] as const;

const ISO_8601 = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)$/;

export interface SentRequest {
  /** The URL's path as sent, the base URL's path included. */
  path: string;
  /** The base URL's path ("" at the root). */
  basePath: string;
  /** The parameter or body field the invalid input is in: does the answer name it? */
  field?: string;
  /** The id the request carried: does the message echo it? */
  id?: string;
}

const ABSENT = "(absent)";

/** True when `text` is the reason phrase of `status`: the reference's table (section 7) or HTTP's own. */
export function isStatusText(text: string, status: number): boolean {
  const known = [STATUS_TEXT[status], STATUS_CODES[status]].filter(Boolean).map((s) => s!.toLowerCase());
  return known.includes(text.trim().toLowerCase());
}

function mentions(text: string, word: string): boolean {
  const escaped = word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(^|[^A-Za-z0-9_])${escaped}($|[^A-Za-z0-9_])`, "i").test(text);
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** How the body's `path` relates to the request: the path sent (encoded or not, with or without the base path) or not. */
function pathForm(value: Json | undefined, sent: SentRequest): string {
  if (value === undefined) return ABSENT;
  if (typeof value !== "string") return "not a string";
  const withoutQuery = value.split("?")[0];
  const relative =
    sent.basePath && sent.path.startsWith(sent.basePath) ? sent.path.slice(sent.basePath.length) : sent.path;
  const forms = new Set([sent.path, relative, safeDecode(sent.path), safeDecode(relative)]);
  if (forms.has(withoutQuery)) return withoutQuery === value ? "the request path" : "the request path and query";
  return "another path";
}

/**
 * The shape of an error answer, aspect by aspect: which 2.2 fields it has and in what form, whether the
 * message names the field the input was wrong in or echoes the id sent. Never the text itself (it holds
 * ids and wording); `error` verbatim only when it is not the status's reason phrase.
 */
export function errorShape(status: number, json: unknown, text: string, sent: SentRequest): Record_ {
  if (!isObject(json)) return { body: text.length === 0 ? "empty" : json === undefined ? "not JSON" : "not an object" };
  const body = json;
  const shape: Record_ = {};
  shape.status = body.status === undefined ? ABSENT : body.status === status ? "the HTTP status" : "another status";
  shape.error =
    body.error === undefined
      ? ABSENT
      : typeof body.error !== "string"
        ? "not a string"
        : isStatusText(body.error, status)
          ? "the status text"
          : body.error.slice(0, 60);
  const message = body.message;
  shape.message =
    message === undefined
      ? ABSENT
      : typeof message !== "string"
        ? "not a string"
        : message.trim() === ""
          ? "empty"
          : "text";
  if (typeof message === "string" && sent.field !== undefined) shape.messageNamesField = mentions(message, sent.field);
  if (typeof message === "string" && sent.id !== undefined) shape.messageEchoesId = message.includes(sent.id);
  shape.path = pathForm(body.path, sent);
  shape.timestamp =
    body.timestamp === undefined
      ? ABSENT
      : typeof body.timestamp === "string" && ISO_8601.test(body.timestamp)
        ? "ISO 8601"
        : "another form";
  const errors = body.validationErrors;
  shape.validationErrors =
    errors === undefined || errors === null
      ? ABSENT
      : !isObject(errors)
        ? "not an object"
        : sent.field === undefined
          ? "present"
          : Object.keys(errors).some((k) => k === sent.field || k.endsWith(`.${sent.field}`))
            ? "names the field"
            : "names other fields";
  shape.extraFields = Object.keys(body)
    .filter((k) => !(ERROR_FIELDS as readonly string[]).includes(k))
    .sort();
  return shape;
}

export type ListOrder = "newest-first" | "oldest-first" | "unordered";

/**
 * The order of items by a creation timestamp they carry, or undefined when the items cannot show one
 * (fewer than two distinct timestamps): a target with one record is not "unordered".
 */
export function orderOf(items: readonly unknown[], field: string): ListOrder | undefined {
  const stamps = items
    .map((item) => (isObject(item) && typeof item[field] === "string" ? Date.parse(item[field] as string) : NaN))
    .filter((t) => !Number.isNaN(t));
  if (new Set(stamps).size < 2) return undefined;
  let down = true;
  let up = true;
  for (let i = 1; i < stamps.length; i++) {
    if (stamps[i] > stamps[i - 1]) down = false;
    if (stamps[i] < stamps[i - 1]) up = false;
  }
  return down ? "newest-first" : up ? "oldest-first" : "unordered";
}

export type Presence = "always" | "sometimes";

/**
 * Which keys records carry: top-level keys, and one level down the keys of nested objects (`agent.name`)
 * and of objects in arrays (`tools[].type`). A key in every record is `always`, in some `sometimes`, in
 * none missing from the map. Nested keys are counted among the records whose parent is an object;
 * `parents` lists the parents seen as objects at least once (only those can show nested keys).
 */
export function presence(records: readonly unknown[]): {
  records: number;
  keys: Record<string, Presence>;
  parents: string[];
} {
  const counts = new Map<string, number>();
  const parentCounts = new Map<string, number>();
  const list = records.filter(isObject);
  const count = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
  for (const record of list) {
    for (const [key, value] of Object.entries(record)) {
      count(key);
      const nested = isObject(value) ? [value] : Array.isArray(value) ? value.filter(isObject) : [];
      const parent = Array.isArray(value) ? `${key}[]` : key;
      for (const child of nested) {
        parentCounts.set(parent, (parentCounts.get(parent) ?? 0) + 1);
        for (const inner of Object.keys(child)) count(`${parent}.${inner}`);
      }
    }
  }
  const keys: Record<string, Presence> = {};
  for (const [key, n] of [...counts].sort(([x], [y]) => x.localeCompare(y))) {
    const dot = key.indexOf(".");
    const of = dot < 0 ? list.length : (parentCounts.get(key.slice(0, dot)) ?? 0);
    keys[key] = n >= of ? "always" : "sometimes";
  }
  return { records: list.length, keys, parents: [...parentCounts.keys()].sort() };
}

/** A default as a short, data-free description: the value itself for numbers, booleans, null and short strings. */
export function describeDefault(value: unknown): Json {
  if (value === undefined) return ABSENT;
  if (value === null || typeof value === "number" || typeof value === "boolean") return value;
  if (typeof value === "string") return value.length <= 40 ? value : `a string of ${value.length} characters`;
  if (Array.isArray(value)) return value.length === 0 ? "an empty array" : `an array of ${value.length}`;
  return Object.keys(value as object).length === 0 ? "an empty object" : "an object";
}

/**
 * Which `active` a list of webhooks defaults to, from the totals with active omitted, true and false;
 * undefined when the data cannot tell (no inactive or no active webhook: two of the answers coincide).
 */
export function activeDefault(omitted: number, onlyTrue: number, onlyFalse: number): string | undefined {
  if (onlyTrue === 0 || onlyFalse === 0) return undefined;
  if (omitted === onlyTrue) return "active=true";
  if (omitted === onlyFalse) return "active=false";
  if (omitted === onlyTrue + onlyFalse) return "both";
  return "another set";
}

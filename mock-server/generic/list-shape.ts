/**
 * Lists as a document shapes them: a plain array, or an object wrapping one array with paging fields
 * (this API's 2.1 wrapper, `{ items, total, limit, offset }`, `{ results, count, next, previous }`...),
 * and the query parameters that page them (`page`/`size`, `page`/`per_page`, `limit`/`offset`,
 * `skip`/`take`). Read from names and types only, so any document's lists keep their own shape.
 */
import { wrapPage, type TotalField } from "../core/pagination.js";
import { nameKey } from "../core/sampling/by-name.js";
import { admitsNull, type Deref, flatten, itemsOf, type Schema, typesOf } from "../core/sampling/schema.js";

/** What a wrapper field says about the page it wraps. */
export type PageField =
  | "page"
  | "size"
  | "total"
  | "totalPages"
  | "hasNext"
  | "hasPrevious"
  | "offset"
  | "next"
  | "previous"
  | "first"
  | "last"
  | "returned"
  | "empty";

export type ListShape =
  | { kind: "array"; items: unknown }
  | {
      kind: "wrapper";
      items: unknown;
      itemsField: string;
      /** The fields other than the items, by what they say (those that say nothing known are absent). */
      fields: Record<string, PageField>;
      properties: Record<string, unknown>;
      required: string[];
      /** This API's 2.1 wrapper, with its total's name: built by core/pagination.ts wrapPage. */
      reference?: TotalField;
    };

const ITEMS_NAMES = [
  "data",
  "items",
  "results",
  "content",
  "records",
  "entries",
  "list",
  "values",
  "elements",
  "rows",
  "hits",
  "objects",
  "resources",
];

const FIELD_NAMES: Record<string, PageField> = {};
const name = (field: PageField, ...keys: string[]) => {
  for (const key of keys) FIELD_NAMES[key] = field;
};
name("page", "page", "pagenumber", "number", "currentpage", "pageindex", "pageno");
name("size", "size", "pagesize", "perpage", "limit", "pagelimit");
name(
  "total",
  "total",
  "totalcount",
  "totalcounts",
  "totalelements",
  "totalitems",
  "totalresults",
  "totalrecords",
  "count",
  "totalsize",
);
name("totalPages", "totalpages", "pagecount", "pages", "numpages", "pagestotal");
name("hasNext", "hasnext", "hasmore", "more", "hasnextpage");
name("hasPrevious", "hasprevious", "hasprev", "haspreviouspage");
name("offset", "offset", "skip", "start", "startindex");
name("next", "next", "nextpage", "nexturl", "nextlink", "nextcursor", "nextpagetoken", "nexttoken", "cursor");
name("previous", "previous", "prev", "previouspage", "prevurl", "previousurl", "previouscursor", "prevcursor");
name("first", "first", "isfirst");
name("last", "last", "islast");
name("returned", "numberofelements", "returned", "itemcount", "pageitems");
name("empty", "empty", "isempty");

const REFERENCE_FIELDS = ["data", "page", "size", "totalPages", "hasNext", "hasPrevious"];

/** The shape of a list response's schema, or undefined when it is no list. */
export function listShapeOf(schema: unknown, deref: Deref): ListShape | undefined {
  if (schema === undefined) return undefined;
  const items = itemsOf(schema, deref);
  if (items !== undefined) return { kind: "array", items };
  const object = flatten(schema, deref);
  const properties = (object.properties ?? {}) as Record<string, unknown>;
  const arrays = Object.keys(properties).filter((key) => itemsOf(properties[key], deref) !== undefined);
  const named = arrays.filter((key) => ITEMS_NAMES.includes(nameKey(key)));
  const itemsField = named.length === 1 ? named[0] : arrays.length === 1 ? arrays[0] : undefined;
  if (!itemsField) return undefined;
  const fields: Record<string, PageField> = {};
  for (const key of Object.keys(properties)) {
    if (key === itemsField) continue;
    const field = FIELD_NAMES[nameKey(key)];
    const types = typesOf(properties[key], deref);
    if (!field) continue;
    // `first`/`last` are Spring's booleans; a `first` link is no paging field known here.
    if ((field === "first" || field === "last" || field === "empty") && !types.includes("boolean")) continue;
    fields[key] = field;
  }
  // An object with one array among unknown fields is a record with a list in it, not a page of records.
  const others = Object.keys(properties).filter((key) => key !== itemsField);
  if (named.length === 0 && others.some((key) => !(key in fields))) return undefined;
  const required = (object.required ?? []) as string[];
  const keys = new Set(Object.keys(properties));
  const total = keys.has("totalCount") ? "totalCount" : keys.has("totalCounts") ? "totalCounts" : undefined;
  const reference =
    total && keys.size === REFERENCE_FIELDS.length + 1 && REFERENCE_FIELDS.every((key) => keys.has(key))
      ? total
      : undefined;
  return {
    kind: "wrapper",
    items: itemsOf(properties[itemsField], deref),
    itemsField,
    fields,
    properties,
    required,
    ...(reference && { reference }),
  };
}

/** How a list operation's query pages it; the names are those of its parameters. */
export type Paging =
  | { kind: "page"; page: string; size?: string; base: 0 | 1 }
  | { kind: "offset"; offset?: string; limit?: string }
  | { kind: "none" };

const PAGE_PARAMS = ["page", "pagenumber", "pageindex", "pageno"];
const SIZE_PARAMS = ["size", "pagesize", "perpage", "limit", "pagelimit"];
const OFFSET_PARAMS = ["offset", "skip", "start", "startindex"];
const LIMIT_PARAMS = ["limit", "take", "top", "max", "maxresults", "count"];

/** The paging parameters among a list operation's query parameters (name -> its schema). */
export function pagingOf(params: Record<string, unknown>, deref: Deref): Paging {
  const find = (keys: string[]) => Object.keys(params).find((p) => keys.includes(nameKey(p)));
  const page = find(PAGE_PARAMS);
  if (page) {
    const schema = flatten(params[page], deref);
    const base = schema.minimum === 1 || schema.default === 1 || schema.exclusiveMinimum === 0 ? 1 : 0;
    return { kind: "page", page, size: find(SIZE_PARAMS), base };
  }
  const offset = find(OFFSET_PARAMS);
  const limit = find(LIMIT_PARAMS);
  if (offset || limit) return { kind: "offset", offset, limit };
  return { kind: "none" };
}

/** The names of the paging parameters (they filter nothing). */
export function pagingParams(paging: Paging): string[] {
  if (paging.kind === "page") return [paging.page, ...(paging.size ? [paging.size] : [])];
  if (paging.kind === "offset") return [paging.offset, paging.limit].filter((p): p is string => p !== undefined);
  return [];
}

/** Page size when a page-numbered list is asked without one and documents no default. */
const DEFAULT_SIZE = 20;

/** The window a query asks for: where it starts, how many, and the numbers a wrapper echoes. */
export interface Window {
  start: number;
  /** Items at most; Infinity for all. */
  count: number;
  /** The page number as asked (zero- or one-based, as the document pages), when paged by number. */
  page?: number;
  size?: number;
  base: 0 | 1;
}

export function windowOf(paging: Paging, query: Record<string, unknown>): Window {
  const num = (name: string | undefined) => {
    const value = name === undefined ? undefined : Number(query[name]);
    return value !== undefined && Number.isFinite(value) ? value : undefined;
  };
  if (paging.kind === "page") {
    const size = Math.max(1, num(paging.size) ?? DEFAULT_SIZE);
    const page = num(paging.page) ?? paging.base;
    return { start: Math.max(0, page - paging.base) * size, count: size, page, size, base: paging.base };
  }
  if (paging.kind === "offset") {
    const limit = num(paging.limit);
    return {
      start: Math.max(0, num(paging.offset) ?? 0),
      count: limit ?? Number.POSITIVE_INFINITY,
      size: limit,
      base: 0,
    };
  }
  return { start: 0, count: Number.POSITIVE_INFINITY, base: 0 };
}

/** What a wrapper needs beside its items: how to write a link to another page, and a value for a field it cannot fill. */
export interface WrapperHelp {
  /** A link to the window starting at `start` (for next/previous fields that are strings). */
  link(start: number, window: Window): string;
  /** A value of a required field this module knows nothing of (drawn from its schema). */
  sample(schema: unknown, name: string): unknown;
  deref: Deref;
}

/** The list answer: the items of the window, in the documented shape. */
export function listBody<T>(shape: ListShape, all: T[], window: Window, help: WrapperHelp): unknown {
  const items = all.slice(window.start, window.start + window.count);
  if (shape.kind === "array") return items;
  const total = all.length;
  if (shape.reference && window.page !== undefined && window.size !== undefined && window.base === 0)
    return wrapPage(items, total, { page: window.page, size: window.size }, shape.reference);
  const size = window.size ?? Math.max(items.length, 1);
  const hasNext = window.start + items.length < total;
  const hasPrevious = window.start > 0;
  const body: Record<string, unknown> = {};
  for (const [key, sub] of Object.entries(shape.properties)) {
    if (key === shape.itemsField) {
      body[key] = items;
      continue;
    }
    const value = fieldValue(shape.fields[key], sub, key, { total, size, hasNext, hasPrevious, items, window, help });
    if (value !== undefined) body[key] = value;
    else if (shape.required.includes(key)) body[key] = help.sample(sub, key);
  }
  return body;
}

interface Numbers {
  total: number;
  size: number;
  hasNext: boolean;
  hasPrevious: boolean;
  items: unknown[];
  window: Window;
  help: WrapperHelp;
}

function fieldValue(field: PageField | undefined, schema: unknown, key: string, n: Numbers): unknown {
  const { window, help } = n;
  switch (field) {
    case "page":
      return window.page ?? (window.size ? Math.floor(window.start / window.size) + window.base : window.base);
    case "size":
      return window.size ?? n.size;
    case "total":
      return n.total;
    case "totalPages":
      return Math.ceil(n.total / n.size);
    case "hasNext":
      return n.hasNext;
    case "hasPrevious":
      return n.hasPrevious;
    case "offset":
      return window.start;
    case "first":
      return !n.hasPrevious;
    case "last":
      return !n.hasNext;
    case "returned":
      return n.items.length;
    case "empty":
      return n.items.length === 0;
    case "next":
    case "previous": {
      const there = field === "next" ? n.hasNext : n.hasPrevious;
      const start = field === "next" ? window.start + n.items.length : Math.max(0, window.start - n.size);
      if (!there) return admitsNull(schema, help.deref) ? null : undefined;
      return linkValue(schema, key, start, n);
    }
    default:
      return undefined;
  }
}

/** A next/previous field: a link when it is a string, a page number or offset when it is a number. */
function linkValue(schema: unknown, key: string, start: number, n: Numbers): unknown {
  const types = typesOf(schema, n.help.deref);
  const { window } = n;
  const page = window.size ? Math.floor(start / window.size) + window.base : window.base;
  if (types.includes("integer") || types.includes("number")) return window.page !== undefined ? page : start;
  if (types.includes("boolean")) return true;
  const flat: Schema = flatten(schema, n.help.deref);
  // A cursor or token is opaque: the start it stands for, as text.
  if (/(cursor|token)/i.test(key) && flat.format === undefined) return String(window.page !== undefined ? page : start);
  return n.help.link(start, window);
}

/**
 * What a change to a field, a parameter or a header finds in one recorded exchange: the body or the
 * parameter values it holds, walked along the change's `field` (traffic-values.ts), judged by the rule
 * blast-radius.ts states per kind of change. Also the helpers both files use to read an exchange against
 * the base spec (which response key documents a status, whether a media type fits).
 */
import { operations, parameters, type Operation } from "./compare.js";
import type { Change, Location } from "./model.js";
import type { Matched } from "./traffic-match.js";
import type { Body } from "../../conformance/recorded/traffic-file.js";
import { aspectOf, type Found, refuses, Schemas, type Token, tokens, valuesAt } from "./traffic-values.js";
import { isObj, resolve, type Obj, type Slot } from "./view.js";

/** A hit (where in the exchange, the offending value), a miss, or "the file did not record what is needed". */
export type Verdict = { pointer?: string; value?: { of: unknown; name?: string } } | "miss" | "undecided";

export const obj = (value: unknown): Obj => (isObj(value) ? value : {});
export const mimeOf = (body: Body): string | undefined => ("mimeType" in body ? body.mimeType : undefined);
export const bare = (type: string | undefined): string => (type ?? "").split(";")[0].trim().toLowerCase();
const escape = (s: string): string => s.replace(/~/g, "~0").replace(/\//g, "~1");
const pointerOf = (side: string, f: Found): string =>
  f.pointer.length ? `${side} /${f.pointer.map(escape).join("/")}` : side;

/** The two documents of one comparison, the head's operations, and ajv over both. */
export class Context {
  readonly headOps: Map<string, Operation>;
  private schemas?: { base: Schemas; head: Schemas };

  constructor(
    readonly base: Obj,
    readonly head: Obj,
  ) {
    this.headOps = operations(head);
  }

  /** ajv over both documents, built the first time a value has to be judged. */
  get judge(): { base: Schemas; head: Schemas } {
    this.schemas ??= { base: new Schemas(this.base), head: new Schemas(this.head) };
    return this.schemas;
  }
}

/** The response key of the base spec that documents this status: the code, its range (`4XX`), or `default`. */
export function responseKey(o: Operation, status: number): string | undefined {
  const keys = Object.keys(obj(o.op.responses));
  const range = `${Math.floor(status / 100)}XX`;
  return (
    keys.find((k) => k === String(status)) ??
    keys.find((k) => k.toUpperCase() === range) ??
    keys.find((k) => k === "default")
  );
}

export const answeredWith = (m: Matched, keys: string[]): boolean =>
  m.exchange.status !== null && keys.includes(responseKey(m.operation, m.exchange.status) ?? "");

/** Whether a recorded Content-Type is the documented media type (or fits its `type/*` range). */
export function mediaFits(actual: string, documented: string): boolean {
  const d = bare(documented);
  if (d === "*/*") return true;
  return d.endsWith("/*") ? actual.startsWith(d.slice(0, -1)) : actual === d;
}

/** The schema a media type of the request body or of a response (at `loc.status`) has in one document. */
function mediaSlot(doc: Obj, o: Operation | undefined, loc: Location): Slot | undefined {
  if (!o) return undefined;
  const holder =
    loc.side === "request"
      ? resolve(doc, o.op.requestBody).node
      : resolve(doc, obj(o.op.responses)[loc.status ?? ""]).node;
  const media = resolve(doc, obj(obj(holder).content)[loc.mediaType ?? ""]).node;
  return isObj(media) && media.schema !== undefined ? { schema: media.schema } : undefined;
}

/** The message's JSON body as the root to walk; a miss when it has none or another media type. */
function jsonRoot(body: Body, loc: Location, headers: Map<string, string> | undefined): Found[] | "miss" | "undecided" {
  if (body.state === "none") return "miss";
  const type = bare(headers?.get("content-type")) || bare(mimeOf(body));
  if (type && loc.mediaType && !mediaFits(type, loc.mediaType)) return "miss";
  return body.state === "json" ? [{ value: body.value, pointer: [] }] : "undecided";
}

/** A change in a request body's schema, against the body the client sent. */
export function requestSchema(ctx: Context, change: Change, loc: Location, m: Matched): Verdict {
  const root = jsonRoot(m.exchange.requestBody, loc, m.exchange.requestHeaders);
  if (!Array.isArray(root)) return root;
  const baseRoot = mediaSlot(ctx.base, m.operation, loc);
  const headRoot = mediaSlot(ctx.head, ctx.headOps.get(m.key), loc);
  return requestValues(ctx, change, root, tokens(loc.field ?? ""), baseRoot, headRoot, "request body", false);
}

/** A change in a response body's schema: removed, may be absent or widened, met by the answers holding the field. */
export function responseSchema(ctx: Context, change: Change, loc: Location, m: Matched): Verdict {
  if (!answeredWith(m, [loc.status ?? ""])) return "miss";
  const root = jsonRoot(m.exchange.responseBody, loc, m.exchange.responseHeaders);
  if (!Array.isArray(root)) return root;
  const widens = change.effect === "widens" || change.effect === "both";
  if (change.member !== "removed" && change.member !== "optional" && !widens) return "miss";
  let path = tokens(loc.field ?? "");
  // A variant added: the base has no such variant to pick values by; the field that holds it is read.
  if (path.at(-1)?.kind === "variant") path = path.slice(0, -1);
  const baseRoot = mediaSlot(ctx.base, m.operation, loc);
  const found = valuesAt(root, path, baseRoot, ctx.judge.base)[0];
  return found
    ? { pointer: pointerOf("response body", found), value: { of: found.value, name: lastName(path) } }
    : "miss";
}

const lastName = (path: Token[]): string | undefined => {
  const t = [...path].reverse().find((x) => x.kind === "prop");
  return t?.kind === "prop" ? t.name : undefined;
};

/** Values a client sent at `path`: removed (carried), required (lacking), narrowed (refused now, accepted before). */
function requestValues(
  ctx: Context,
  change: Change,
  root: Found[],
  path: Token[],
  baseRoot: Slot | undefined,
  headRoot: Slot | undefined,
  side: string,
  text: boolean,
): Verdict {
  const { base, head } = ctx.judge;
  const last = path.at(-1);
  if (change.member === "removed") {
    const found = valuesAt(root, path, baseRoot, base)[0];
    return found ? { pointer: pointerOf(side, found), value: { of: found.value, name: lastName(path) } } : "miss";
  }
  if (change.member === "required") {
    if (last?.kind !== "prop") return "miss";
    const parent = valuesAt(root, path.slice(0, -1), baseRoot, base).find(
      (f) => isObj(f.value) && !Object.hasOwn(f.value, last.name),
    );
    return parent ? { pointer: `${pointerOf(side, parent)} (no ${last.name})` } : "miss";
  }
  if (change.member || (change.effect !== "narrows" && change.effect !== "both")) return "miss";
  const aspect = aspectOf(change.message);
  if (!aspect) return "miss";
  if (last?.kind === "variant") {
    // A variant removed: what the base's variant accepted and the head's union refuses.
    const parentPath = path.slice(0, -1);
    const variant = base.slotAt(baseRoot, path);
    const headParent = head.slotAt(headRoot, parentPath);
    const found = valuesAt(root, parentPath, baseRoot, base).find(
      (f) =>
        !!variant &&
        base.accepts(variant.schema, f.value) === true &&
        refuses(head, headParent, "variants", f.value) === true,
    );
    return found ? { pointer: pointerOf(side, found), value: { of: found.value, name: lastName(parentPath) } } : "miss";
  }
  const baseSlot = base.slotAt(baseRoot, path);
  const headSlot = head.slotAt(headRoot, path);
  const found = valuesAt(root, path, baseRoot, base).find(
    (f) =>
      refuses(head, headSlot, aspect, f.value, text) === true &&
      refuses(base, baseSlot, aspect, f.value, text) !== true,
  );
  return found ? { pointer: pointerOf(side, found), value: { of: found.value, name: lastName(path) } } : "miss";
}

/** The recorded values of a parameter: query pairs, a header, a cookie, a path segment; undefined when not recorded. */
function parameterValues(loc: Location, m: Matched): string[] | undefined {
  const p = loc.parameter!;
  const ex = m.exchange;
  if (p.in === "query") return ex.query.filter(([k]) => k === p.name).map(([, v]) => v);
  if (p.in === "path") {
    const raw = m.pathParams[p.position ?? -1];
    return raw === undefined ? [] : [decodeSegment(raw)];
  }
  if (!ex.requestHeaders) return undefined;
  if (p.in === "header") {
    const value = ex.requestHeaders.get(p.name.toLowerCase());
    return value === undefined ? [] : [value];
  }
  const cookies = (ex.requestHeaders.get("cookie") ?? "").split(";").map((c) => c.trim().split("="));
  return cookies.filter(([k]) => k === p.name).map(([, ...v]) => v.join("="));
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The parameter a location names, in one document's operation (a path parameter by its position). */
function findParameter(doc: Obj, o: Operation | undefined, loc: Location): Obj | undefined {
  if (!o) return undefined;
  const p = loc.parameter!;
  for (const param of parameters(doc, o).values()) {
    const same =
      param.param.in === p.in &&
      (p.in === "path"
        ? param.position === p.position
        : String(param.param.name).toLowerCase() === p.name.toLowerCase());
    if (same) return param.param;
  }
  return undefined;
}

const schemaSlot = (param: Obj | undefined): Slot | undefined =>
  param?.schema === undefined ? undefined : { schema: param.schema };

/** A parameter change in one exchange: sent (removed, serialization), not sent (required), a value refused now. */
export function parameter(ctx: Context, change: Change, loc: Location, m: Matched): Verdict {
  const values = parameterValues(loc, m);
  if (!values) return "undecided";
  const p = loc.parameter!;
  const where = `${p.in} ${p.in === "path" ? `segment ${p.name}` : p.name}`;
  const carried = values.length > 0;
  if (loc.part === "serialization" || change.member === "removed")
    return carried ? { pointer: where, value: { of: values[0], name: p.name } } : "miss";
  if (change.member === "required") return carried ? "miss" : { pointer: `${where} (not sent)` };
  if (!carried) return "miss";
  const baseParam = findParameter(ctx.base, m.operation, loc);
  const baseRoot = schemaSlot(baseParam);
  const headRoot = schemaSlot(findParameter(ctx.head, ctx.headOps.get(m.key), loc));
  // An array parameter is every occurrence (or one comma-separated value when not exploded).
  const isArray = !!baseRoot && arrayTyped(ctx.base, baseRoot);
  const exploded = baseParam?.explode !== false;
  const value = isArray ? (exploded || values.length > 1 ? values : values[0].split(",")) : values[0];
  const verdict = requestValues(
    ctx,
    change,
    [{ value, pointer: [] }],
    tokens(loc.field ?? ""),
    baseRoot,
    headRoot,
    where,
    true,
  );
  if (typeof verdict === "object" && verdict.value) verdict.value.name = p.name;
  return verdict;
}

function arrayTyped(doc: Obj, slot: Slot): boolean {
  const node = obj(resolve(doc, slot.schema).node);
  return node.type === "array" || (Array.isArray(node.type) && node.type.includes("array"));
}

/**
 * JSON Schema validators of one document at the two levels the kit judges at, compiled on first use.
 *
 * Level `documented` must never fail a deployment on a decision the kit took itself, so every schema
 * node that carries `x-assumption` loses the restrictions it adds (enum, const, bounds, pattern,
 * required, closed objects), and a property carrying `x-assumption` is no longer required by its parent.
 * Level `assumed` is the spec as written and closes every object (unknown properties fail).
 *
 * One LeveledValidators per document object (a WeakMap): the suite and the upstream door ask for a
 * validator on every exchange, and each is compiled once.
 */
import type { Ajv2020 } from "ajv/dist/2020.js";
import type { ErrorObject, ValidateFunction } from "ajv";
import { createOpenApiAjv } from "../openapi-ajv.js";
import { resolvePointer, type Json, type JsonObject } from "./json-document.js";
import type { OperationInfo } from "./operation-table.js";

export type Level = "documented" | "assumed";
export type { ErrorObject, ValidateFunction };

const RELAXED_KEYWORDS = [
  "enum",
  "const",
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minItems",
  "maxItems",
  "uniqueItems",
  "pattern",
  "required",
];

/**
 * Nodes whose x-assumption is about something other than their restrictions, so those stay documented.
 * CallStatus: the enum is the reference's section 3; only the transitions are assumed.
 */
const KEEP_DOCUMENTED = new Set(["/components/schemas/CallStatus"]);

function isObject(node: Json | undefined): node is JsonObject {
  return node !== null && typeof node === "object" && !Array.isArray(node);
}

function relax(node: Json, pointer: string): void {
  if (Array.isArray(node)) {
    node.forEach((child, i) => relax(child, `${pointer}/${i}`));
    return;
  }
  if (!isObject(node)) return;
  if (node["x-assumption"] !== undefined && !KEEP_DOCUMENTED.has(pointer)) {
    for (const keyword of RELAXED_KEYWORDS) delete node[keyword];
    if (node.additionalProperties === false) delete node.additionalProperties;
  }
  const properties = node.properties;
  if (isObject(properties) && Array.isArray(node.required)) {
    const assumed = Object.keys(properties).filter(
      (k) => isObject(properties[k]) && (properties[k] as JsonObject)["x-assumption"] !== undefined,
    );
    node.required = node.required.filter((k) => !assumed.includes(k as string));
  }
  for (const [key, child] of Object.entries(node)) relax(child, `${pointer}/${key}`);
}

/** Closes object schemas; members of an allOf stay open and their parent closes with unevaluatedProperties. */
function close(doc: JsonObject): void {
  const members = new Set<JsonObject>();
  const resolve = (n: Json): Json => (isObject(n) && typeof n.$ref === "string" ? resolveRef(doc, n.$ref) : n);
  const collect = (node: Json): void => {
    if (Array.isArray(node)) return node.forEach(collect);
    if (!isObject(node)) return;
    if (Array.isArray(node.allOf))
      for (const m of node.allOf) {
        const r = resolve(m);
        if (isObject(r)) members.add(r);
      }
    Object.values(node).forEach(collect);
  };
  const apply = (node: Json): void => {
    if (Array.isArray(node)) return node.forEach(apply);
    if (!isObject(node)) return;
    const open = node.additionalProperties === undefined && node.unevaluatedProperties === undefined;
    if (open && !members.has(node) && (Array.isArray(node.allOf) || isObject(node.properties)))
      node.unevaluatedProperties = false;
    Object.values(node).forEach(apply);
  };
  const roots = [doc.components, doc.paths, doc.webhooks] as Json[];
  roots.forEach(collect);
  roots.forEach(apply);
}

function resolveRef(doc: JsonObject, ref: string): Json {
  let node: Json = doc;
  for (const raw of ref.replace(/^#\//, "").split("/"))
    node = (node as JsonObject)[raw.replace(/~1/g, "/").replace(/~0/g, "~")];
  return node;
}

/** The id the leveled copy of the document is added under; validators refer into it by pointer. */
const DOC_ID = "spec.json";

export class LeveledValidators {
  private readonly docs = new Map<Level, JsonObject>();
  private readonly ajvs = new Map<string, Ajv2020>();
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly doc: JsonObject) {}

  /** The document as judged at `level`: relaxed (documented) or closed (assumed), copied once. */
  leveledDocument(level: Level): JsonObject {
    let leveled = this.docs.get(level);
    if (!leveled) {
      leveled = structuredClone(this.doc);
      if (level === "documented") relax(leveled, "");
      else close(leveled);
      this.docs.set(level, leveled);
    }
    return leveled;
  }

  /** Validator of the schema at `pointer` (a JSON pointer into the document) at `level`. */
  validatorFor(pointer: string, level: Level): ValidateFunction {
    return this.compile(`${level}:${pointer}`, level, false, () => ({ $ref: `${DOC_ID}#${pointer}` }));
  }

  /**
   * Validator of an operation's parameters, given as `{ path: {...}, query: {...} }` of strings (a
   * copy: the strings are coerced to the schema types in place, as the mock reads them). Errors point
   * at `/query/size`, `/path/phoneNumber`. Path parameters are always required; a query parameter when
   * the document says so at that level (a parameter carrying x-assumption is not, at level documented).
   */
  parametersValidator(op: OperationInfo, level: Level): ValidateFunction {
    return this.compile(`${level}:parameters:${op.operationId}`, level, true, () => {
      const leveled = this.leveledDocument(level);
      const located = op.parameterPointers.map((pointer) => ({
        pointer,
        param: (resolvePointer(leveled, pointer) ?? {}) as JsonObject,
      }));
      const group = (where: "path" | "query") => {
        const own = located.filter((p) => p.param.in === where);
        return {
          type: "object",
          properties: Object.fromEntries(
            own.map(({ pointer, param }) => [param.name as string, { $ref: `${DOC_ID}#${pointer}/schema` }]),
          ),
          required: own.filter((p) => where === "path" || p.param.required === true).map((p) => p.param.name),
        };
      };
      return { type: "object", properties: { path: group("path"), query: group("query") } };
    });
  }

  private compile(key: string, level: Level, coerce: boolean, schema: () => object): ValidateFunction {
    const cached = this.compiled.get(key);
    if (cached) return cached;
    const validate = this.ajv(level, coerce).compile(schema());
    this.compiled.set(key, validate);
    return validate;
  }

  /** Bodies are judged as sent; parameters arrive as strings and are coerced (a repeated one to an array). */
  private ajv(level: Level, coerce: boolean): Ajv2020 {
    const key = `${level}:${coerce}`;
    let ajv = this.ajvs.get(key);
    if (!ajv) {
      ajv = coerce ? createOpenApiAjv({ coerceTypes: "array" }) : createOpenApiAjv();
      ajv.addSchema(this.leveledDocument(level) as object, DOC_ID);
      this.ajvs.set(key, ajv);
    }
    return ajv;
  }
}

const byDocument = new WeakMap<object, LeveledValidators>();

/** The leveled validators of `doc`, made on first use and kept as long as the document object lives. */
export function leveledValidators(doc: object): LeveledValidators {
  let validators = byDocument.get(doc);
  if (!validators) byDocument.set(doc, (validators = new LeveledValidators(doc as JsonObject)));
  return validators;
}

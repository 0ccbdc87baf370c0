/**
 * A valid request of an operation, from the document alone: its required query parameters and
 * headers, and its body (the media type's example first, else the schema's examples, else generated),
 * each checked against the document before it is sent. Path parameters are given by the caller (ids
 * of records; see records.ts). JSON, form, multipart and raw bodies.
 */
import type { Json, JsonObject } from "../../mock-server/core/exchange-rules/json-document.js";
import { resolvePointer } from "../../mock-server/core/exchange-rules/json-document.js";
import type { OperationInfo } from "../../mock-server/core/exchange-rules/operation-table.js";
import { operationPlacement } from "../lib/credentials.js";
import type { SuiteDocument } from "../lib/document.js";
import type { RequestSpec } from "../lib/http.js";
import { schemaAt, type Schema } from "./schema-walk.js";
import { passes, validValue, type ValueOptions } from "./values.js";

/** Headers a request carries anyway: a document listing them as parameters does not make the suite send them twice. */
const TRANSPORT_HEADERS = new Set(["accept", "content-type", "authorization", "content-length", "cookie"]);

export interface Parameter {
  name: string;
  in: string;
  required: boolean;
  /** Where its schema sits (for validators and values). */
  schemaPointer: string;
  schema: Schema;
}

/** The operation's parameters with their schemas' pointers, header parameters the transport sets left out. */
export function parametersOf(document: SuiteDocument, op: OperationInfo): Parameter[] {
  return op.parameters.flatMap((param, i) => {
    const name = String(param.name);
    const where = String(param.in);
    if (where === "header" && TRANSPORT_HEADERS.has(name.toLowerCase())) return [];
    const at = schemaAt(document.doc, `${op.parameterPointers[i]}/schema`);
    if (!at) return [];
    return [
      {
        name,
        in: where,
        required: where === "path" || param.required === true,
        schemaPointer: at.pointer,
        schema: at.schema,
      },
    ];
  });
}

/** The value a parameter is sent with: its own example first (parameter or schema), else generated; always valid. */
export function parameterValue(document: SuiteDocument, param: Parameter, options: ValueOptions): unknown {
  return (
    validValue(document.doc, param.schemaPointer, "assumed", options) ??
    validValue(document.doc, param.schemaPointer, "documented", options)
  );
}

/** Text of a value on the wire (a query string, a path segment, a header). */
export function wireText(value: unknown): string {
  return Array.isArray(value)
    ? value.map(wireText).join(",")
    : typeof value === "object" && value !== null
      ? JSON.stringify(value)
      : String(value);
}

/** The template with each `{name}` replaced by its value (encoded), under the run's path prefix. */
export function pathWith(prefix: string, template: string, values: Record<string, string>): string {
  return prefix + template.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? ""));
}

/** The parameters of `where` a valid request carries: the required ones, each with a valid value. */
export function requiredValues(
  document: SuiteDocument,
  op: OperationInfo,
  where: "query" | "header" | "cookie",
  options: ValueOptions,
): { values: Record<string, string>; problem?: string } {
  const values: Record<string, string> = {};
  for (const param of parametersOf(document, op).filter((p) => p.in === where && p.required)) {
    const value = parameterValue(document, param, options);
    if (value === undefined) return { values, problem: `no valid value for the ${where} parameter ${param.name}` };
    values[param.name] = wireText(value);
  }
  return { values };
}

/** The media type object of the request body (its examples live there). */
function mediaType(document: SuiteDocument, op: OperationInfo): JsonObject | undefined {
  if (!op.requestSchemaPointer) return undefined;
  return resolvePointer(document.doc, op.requestSchemaPointer.replace(/\/schema$/, "")) as JsonObject | undefined;
}

/** The media type's own examples (`example`, then each of `examples`, $refs followed), in order. */
function mediaExamples(document: SuiteDocument, op: OperationInfo): unknown[] {
  const media = mediaType(document, op);
  if (!media) return [];
  const out: unknown[] = [];
  if (media.example !== undefined) out.push(media.example);
  for (const raw of Object.values((media.examples ?? {}) as JsonObject)) {
    let example = raw as Json | undefined;
    for (let hops = 0; hops < 10 && example && typeof example === "object" && "$ref" in example; hops++)
      example = resolvePointer(document.doc, String((example as JsonObject).$ref).replace(/^#/, ""));
    if (example && typeof example === "object" && !Array.isArray(example) && "value" in example)
      out.push(example.value);
  }
  return out;
}

/** Whether the body travels as JSON (`application/json`, `application/*+json`). */
export function isJsonMedia(type: string | undefined): boolean {
  return !!type && /^application\/([\w.-]+\+)?json\b/i.test(type);
}

/**
 * A valid body of the operation, as a value (an object for JSON, form and multipart bodies): the media
 * type's examples first, then the schema's, else generated. Undefined when the operation takes none;
 * `problem` when no value the document accepts could be made.
 */
export function validBodyValue(
  document: SuiteDocument,
  op: OperationInfo,
  options: ValueOptions,
  prefer: "examples" | "generated" = "examples",
): { value?: unknown; problem?: string } {
  const pointer = op.requestSchemaPointer;
  if (!pointer) return {};
  const valid = (v: unknown) =>
    passes(document.doc, pointer, "assumed", v) || passes(document.doc, pointer, "documented", v);
  const fromExamples = () => {
    for (const example of mediaExamples(document, op)) if (valid(example)) return structuredClone(example);
    return (
      validValue(document.doc, pointer, "assumed", options) ?? validValue(document.doc, pointer, "documented", options)
    );
  };
  const generated = () => {
    const only = { ...options, examples: false };
    return validValue(document.doc, pointer, "assumed", only) ?? validValue(document.doc, pointer, "documented", only);
  };
  const value =
    options.examples === false
      ? generated()
      : prefer === "generated"
        ? (generated() ?? fromExamples())
        : fromExamples();
  return value === undefined
    ? { problem: `no body the document accepts could be made for ${op.operationId}` }
    : { value };
}

/**
 * Which values a write sends: on a foreign target generated ones first (they carry the run id, and an
 * example's fixed name or id may be a real record's there), else the examples first.
 */
export function writePreference(isMock: boolean, method: string): "examples" | "generated" {
  return isMock || method === "GET" ? "examples" : "generated";
}

/** The body as sent: JSON, urlencoded or multipart form fields, or raw bytes for any other media type. */
export function encodeBody(op: OperationInfo, value: unknown): Pick<RequestSpec, "body" | "rawBody" | "headers"> {
  const type = op.requestContentType;
  if (value === undefined || !type) return {};
  if (isJsonMedia(type)) return { body: value, headers: type === "application/json" ? {} : { "Content-Type": type } };
  const fields = value && typeof value === "object" && !Array.isArray(value) ? Object.entries(value) : [];
  if (/^application\/x-www-form-urlencoded/i.test(type)) {
    const form = new URLSearchParams();
    for (const [name, v] of fields) form.set(name, wireText(v));
    return { rawBody: form.toString(), headers: { "Content-Type": "application/x-www-form-urlencoded" } };
  }
  if (/^multipart\//i.test(type)) {
    const form = new FormData();
    for (const [name, v] of fields) form.append(name, typeof v === "string" ? v : JSON.stringify(v));
    return { body: form };
  }
  return { rawBody: typeof value === "string" ? value : JSON.stringify(value), headers: { "Content-Type": type } };
}

/** The credential placement of the operation (another document's own scheme), to override the run's. */
export function credentialFor(document: SuiteDocument, op: OperationInfo): Pick<RequestSpec, "credential"> {
  if (document.handWritten) return {};
  const placement = operationPlacement(document.doc, op.path, op.method, document.credential);
  return placement ? { credential: placement } : {};
}

export interface RequestParts {
  query: Record<string, string>;
  headers: Record<string, string>;
  problem?: string;
}

/** The query and headers every valid request of the operation carries (its required parameters). */
export function requiredParts(document: SuiteDocument, op: OperationInfo, options: ValueOptions): RequestParts {
  const query = requiredValues(document, op, "query", options);
  const headers = requiredValues(document, op, "header", options);
  const cookies = requiredValues(document, op, "cookie", options);
  const cookie = Object.entries(cookies.values)
    .map(([k, v]) => `${k}=${v}`)
    .join("; ");
  return {
    query: query.values,
    headers: { ...headers.values, ...(cookie ? { Cookie: cookie } : {}) },
    problem: query.problem ?? headers.problem ?? cookies.problem,
  };
}

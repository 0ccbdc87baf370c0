/**
 * The operations of a spec, each with its validators (compiled at `npm run generate`, or at run time
 * for another document: compile-spec.ts). The core routes from this table, so an operation added to
 * spec/ is routed after `npm run generate` (served by the generic layer until it has a handler). A
 * Contract (contract.ts) builds the table of its spec once. The media types read are the ones the
 * validators were compiled from (operation-schemas.ts).
 */
import type { operations, webhooks } from "../../generated/schema.js";
import { derefIn } from "./json-ref.js";
import { parametersOf, requestMediaType, responseMediaType, type ParameterObject } from "./operation-schemas.js";
import type { CompiledValidator, GeneratedValidators } from "./validation.js";

type WebhookOperation = NonNullable<webhooks[keyof webhooks]["post"]>;
/** Operations under paths; the top-level `webhooks` are deliveries the mock sends, not routes. */
export type OperationId = {
  [K in keyof operations]: operations[K] extends WebhookOperation ? never : K;
}[keyof operations];
export type Method = "get" | "post" | "put" | "patch" | "delete";

export interface ResponseInfo {
  status: number;
  /** null: the status is documented with no body (E13's 204). */
  check: ((body: unknown) => boolean) | null;
  /** The errors of the last failed check. */
  errors(): { instancePath: string; message?: string }[];
  schema: unknown;
  /** The documented media type the schema is of (application/json, or a +json type); absent without one. */
  mediaType?: string;
  examples: Record<string, unknown>;
  /**
   * The answer's media type when the status documents no JSON one (an image, text, bytes), with its
   * example if it has one: such a body is sent as it is, not checked (`check` is null).
   */
  otherMedia?: { type: string; example?: unknown };
}

/**
 * A query parameter of array type. One value arrives as a string (`?tags=a`), several as an array
 * (`?tags=a&tags=b`, style form with explode, the default); `separator` splits a non-exploded one
 * (`?tags=a,b`, or space- and pipe-delimited styles).
 */
export interface ArrayQueryParam {
  name: string;
  separator?: string;
}

export interface Operation {
  operationId: OperationId;
  method: Method;
  path: string;
  tags: string[];
  pathParams: string[];
  queryParams: string[];
  /** The query parameters of array type, whose values are made arrays before validation. */
  arrayQuery: ArrayQueryParam[];
  /** Validates `{ path, query }` in place: coerces strings and fills documented defaults. */
  validateParams: CompiledValidator;
  /** How the body is read: JSON (`application/json` or any `+json` type) or a multipart form; absent: not read. */
  bodyType?: "application/json" | "multipart/form-data";
  /** The documented media type the body is read as (`application/merge-patch+json`); absent with bodyType. */
  bodyMediaType?: string;
  bodyRequired: boolean;
  bodySchema?: unknown;
  /** The request body's schema (JSON or the multipart form's fields alike). */
  validateBody?: CompiledValidator;
  responses: Map<number, ResponseInfo>;
  successStatus: number;
}

const METHODS: Method[] = ["get", "post", "put", "patch", "delete"];

/** What the table is built from: one spec's document and validators, and where passed objects are kept. */
export interface OperationSource {
  document: unknown;
  validators: GeneratedValidators;
  /** `validate(value)`, remembering the objects that passed (validation.ts PassedObjects). */
  validateCached(validate: CompiledValidator, value: unknown): boolean;
  /**
   * The kit's own spec (Contract.handwritten): its multipart form is read by E9's upload rules
   * (uploads.ts). Another document's multipart body is not read: those rules are this API's.
   */
  handwritten?: boolean;
}

type Deref = <T = Record<string, unknown>>(node: unknown) => T;

/** `#/components/schemas/CallPage` -> "Call" when the page's `data` items are one component schema. */
function pageItemSchema(deref: Deref, schema: unknown): string | undefined {
  const page = deref<Record<string, any>>(schema);
  for (const part of [page, ...(page?.allOf ?? []).map((p: unknown) => deref<Record<string, any>>(p))]) {
    const ref = part?.properties?.data?.items?.$ref;
    if (typeof ref === "string" && ref.startsWith("#/components/schemas/")) return ref.split("/").pop();
  }
  return undefined;
}

/**
 * A response check. Records are validated once per object (validateCached); a page's records one by
 * one that way, then its envelope with no records in it, so a page read costs the envelope only.
 */
function responseCheck(
  source: OperationSource,
  deref: Deref,
  validate: CompiledValidator,
  schema: unknown,
): Pick<ResponseInfo, "check" | "errors"> {
  const item = pageItemSchema(deref, schema);
  const validateItem = item ? source.validators.schemaValidators[item] : undefined;
  let lastErrors: { instancePath: string; message?: string }[] = [];
  const check = (body: unknown): boolean => {
    lastErrors = [];
    const data = (body as { data?: unknown })?.data;
    if (validateItem && Array.isArray(data)) {
      for (const [i, record] of data.entries()) {
        if (!source.validateCached(validateItem, record)) {
          lastErrors = (validateItem.errors ?? []).map((e) => ({ ...e, instancePath: `/data/${i}${e.instancePath}` }));
          return false;
        }
      }
      if (validate({ ...(body as object), data: [] })) return true;
    } else if (source.validateCached(validate, body)) return true;
    lastErrors = validate.errors ?? [];
    return false;
  };
  return { check, errors: () => lastErrors };
}

function buildOperation(
  source: OperationSource,
  deref: Deref,
  path: string,
  method: Method,
  item: Record<string, any>,
  op: Record<string, any>,
): Operation {
  const validators = source.validators.operationValidators[op.operationId];
  if (!validators) throw new Error(`no generated validators for ${op.operationId}: run npm run generate`);
  const params: ParameterObject[] = parametersOf(source.document, item, op);
  const body = op.requestBody ? deref<Record<string, any>>(op.requestBody) : undefined;
  const bodyMediaType = requestMediaType(body?.content);
  const multipart = bodyMediaType?.toLowerCase().startsWith("multipart/form-data");
  const bodyType: Operation["bodyType"] =
    !bodyMediaType || (multipart && source.handwritten === false)
      ? undefined
      : multipart
        ? "multipart/form-data"
        : "application/json";
  const responses = new Map<number, ResponseInfo>();
  for (const [code, ref] of Object.entries<Record<string, any>>(op.responses ?? {})) {
    // `default` and ranges (`4XX`) name no status the mock answers with; the document still has them.
    if (!/^\d{3}$/.test(code)) continue;
    const response = deref<Record<string, any>>(ref);
    const mediaType = responseMediaType(response?.content);
    const media = mediaType ? response.content[mediaType] : undefined;
    const otherType = mediaType ? undefined : Object.keys(response?.content ?? {})[0];
    const examples = Object.fromEntries(
      Object.entries<Record<string, unknown>>(media?.examples ?? {}).map(([name, ex]) => [
        name,
        deref<{ value: unknown }>(ex).value,
      ]),
    );
    // A media type's single `example` (OpenAPI 3.1 keeps it beside `examples`).
    if (media?.example !== undefined && Object.keys(examples).length === 0) examples.default = media.example;
    const validate = validators.responses[code];
    const check = validate ? responseCheck(source, deref, validate, media?.schema) : { check: null, errors: () => [] };
    responses.set(Number(code), {
      status: Number(code),
      schema: media?.schema,
      // Every key always there (undefined when absent): one object shape for every response the hot path reads.
      mediaType,
      otherMedia: otherType ? { type: otherType, example: response.content[otherType]?.example } : undefined,
      examples,
      ...check,
    });
  }
  return {
    operationId: op.operationId,
    method,
    path,
    tags: op.tags ?? [],
    pathParams: params.filter((p) => p.in === "path").map((p) => p.name),
    queryParams: params.filter((p) => p.in === "query").map((p) => p.name),
    arrayQuery: arrayQueryParams(deref, params),
    validateParams: validators.params,
    bodyType,
    // A body the mock does not read (another document's multipart form) is none to the handler either.
    bodyMediaType: bodyType ? bodyMediaType : undefined,
    bodyRequired: Boolean(bodyType && body?.required),
    bodySchema: bodyType ? body!.content[bodyMediaType!].schema : undefined,
    validateBody: bodyType ? validators.body : undefined,
    responses,
    successStatus: [...responses.keys()].find((s) => s >= 200 && s < 300) ?? 200,
  };
}

const SEPARATORS: Record<string, string> = { form: ",", spaceDelimited: " ", pipeDelimited: "|" };

function arrayQueryParams(deref: Deref, params: ParameterObject[]): ArrayQueryParam[] {
  const found: ArrayQueryParam[] = [];
  for (const p of params as (ParameterObject & { schema?: unknown; style?: string; explode?: boolean })[]) {
    if (p.in !== "query") continue;
    const type = deref<{ type?: unknown }>(p.schema)?.type;
    if (type !== "array" && !(Array.isArray(type) && type.includes("array"))) continue;
    const style = p.style ?? "form";
    // Form style explodes by default; the delimited styles do not.
    const explode = p.explode ?? style === "form";
    found.push(explode ? { name: p.name } : { name: p.name, separator: SEPARATORS[style] ?? "," });
  }
  return found;
}

/** Every operation under the spec's paths; throws when one has no generated validators. */
export function buildOperations(source: OperationSource): Operation[] {
  const deref: Deref = (node) => derefIn(source.document, node);
  const paths = (source.document as { paths: Record<string, unknown> }).paths;
  const operations: Operation[] = [];
  for (const [path, rawItem] of Object.entries(paths)) {
    const item = deref<Record<string, any>>(rawItem);
    for (const method of METHODS)
      if (item[method]) operations.push(buildOperation(source, deref, path, method, item, item[method]));
  }
  return operations;
}

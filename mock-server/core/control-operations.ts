/**
 * The /__mock control plane as spec/mock-control.yaml describes it, compiled at `npm run generate`
 * (generated/mock-control-validators.js): each operation's method, path and validators. The core
 * routes control requests from this table and validates each one here before its handler
 * (mock-server/control/) runs, so a handler gets typed, valid input; with response validation on,
 * its reply is checked against the spec like an API reply.
 * Unlike the API's spec this one is not reloaded (--watch): the control plane is the mock's own code.
 */
import type { EventReader } from "./events.js";
import type { ErrorObject } from "ajv";
import type { operations } from "../../generated/mock-control.js";
import {
  type ControlOperationValidators,
  controlOperations as generatedOperations,
} from "../../generated/mock-control-validators.js";
import { ApiError, invalid, type ValidationErrors } from "./errors.js";
import { replyDrift, toValidationErrors } from "./validation.js";

export type ControlOperationId = keyof operations;

type Op<K extends ControlOperationId> = operations[K];
/** `T`, or `D` where the spec has nothing (openapi-typescript writes `never`). */
type Or<T, D> = [T] extends [never] ? D : T;
type JsonOf<B> = B extends { content: { "application/json": infer J } } ? J : never;

/** Path parameters, decoded and validated. */
export type ControlPath<K extends ControlOperationId> = Or<
  NonNullable<Op<K>["parameters"]["path"]>,
  Record<string, never>
>;
/** Query parameters, coerced to their types. */
export type ControlQuery<K extends ControlOperationId> = Or<
  NonNullable<Op<K>["parameters"]["query"]>,
  Record<string, never>
>;
/** The JSON body, valid; undefined when the spec makes it optional and none was sent, or documents none. */
export type ControlBody<K extends ControlOperationId> =
  Op<K> extends { requestBody: infer B }
    ? JsonOf<B>
    : Or<JsonOf<NonNullable<Op<K>["requestBody"]>>, undefined> | undefined;

export interface ControlInput<K extends ControlOperationId = ControlOperationId> {
  params: ControlPath<K>;
  query: ControlQuery<K>;
  body: ControlBody<K>;
  /** Called with a workspace's key (control/access.ts): the one workspace it may see and change. */
  scope?: string;
}

/** A handler's answer: a status the operation documents (its body is checked when responses are validated). */
export interface ControlReply<K extends ControlOperationId = ControlOperationId> {
  status: Extract<keyof Op<K>["responses"], number>;
  body?: unknown;
  /** GET /__mock/events only: the stream the door writes instead of a body. */
  events?: EventReader;
  /** A body that is not JSON (GET /__mock/metrics: Prometheus text), sent as it is. */
  text?: { contentType: string; body: string };
}

/** A request as sent, before validation: what rules the schema cannot express (`check`) look at. */
export interface SentControlInput {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
}

export interface ControlOperation<K extends ControlOperationId = ControlOperationId>
  extends ControlOperationValidators {
  operationId: K;
}

/** `/a/b` parts: literal segments sort before parameters, position by position. */
function specificity(a: ControlOperation, b: ControlOperation): number {
  const [pa, pb] = [a.path, b.path].map((p) => p.split("/").map((s) => (s.startsWith("{") ? 1 : 0)));
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) if (pa[i] !== pb[i]) return pa[i] - pb[i];
  return pa.length - pb.length;
}

/**
 * Every control operation in match order: a literal segment (`/workspaces/{id}/reset`) before the
 * `{collection}` it would also fit, whatever order the spec lists them in.
 */
export const controlOperations: readonly ControlOperation[] = [...generatedOperations].sort(specificity);

/**
 * The request, validated against its operation and typed. A path parameter the spec refuses (an unknown
 * `{collection}`) names nothing that could exist: 404, as an unknown path. Everything else wrong is one
 * 400 naming every field: query parameters (a name the operation does not have, or given twice), the
 * body, and what `check` finds. `check` holds the rules the schema cannot express (one field against
 * another); it sees the request as sent, so it runs, and reports, even when the schema refuses it.
 * A body sent to an operation that documents none is ignored, as the control plane always has.
 */
export function controlInput<K extends ControlOperationId>(
  op: ControlOperation<K>,
  sent: { path: Record<string, string>; query: Record<string, string | string[]>; body: unknown },
  check?: (input: SentControlInput) => ValidationErrors | undefined,
): ControlInput<K> {
  const target = { path: { ...sent.path }, query: { ...sent.query } };
  let errors: ValidationErrors = {};
  if (!op.params(target)) {
    const failed = op.params.errors ?? [];
    const inPath = toValidationErrors(within(failed, "/path"));
    const [name, message] = Object.entries(inPath)[0] ?? [];
    if (name !== undefined) throw new ApiError(404, `Unknown ${name} ${sent.path[name]}: ${message}`);
    errors = queryErrors(op, within(failed, "/query"), sent.query);
  }
  const body = op.body ? sent.body : undefined;
  if (op.body?.required && body === undefined) errors.body ??= "is required";
  else if (op.body && body !== undefined && !op.body.validate(body))
    errors = { ...errors, ...bodyErrors(op.body.validate.errors ?? []) };
  const checked = check?.({ params: target.path, query: target.query, body }) ?? {};
  for (const [field, message] of Object.entries(checked)) errors[field] ??= message;
  if (Object.keys(errors).length > 0) throw invalid(errors);
  return { params: target.path, query: target.query, body } as unknown as ControlInput<K>;
}

/** What is wrong with a handler's reply against the spec, or undefined when it fits. */
export function controlReplyDrift(op: ControlOperation, reply: { status: number; body?: unknown }): string | undefined {
  const documented = op.responses[String(reply.status)];
  return replyDrift(reply, documented, () => documented?.errors ?? []);
}

/** The errors under `/path` or `/query`, named as the parameter (`status`, not `query.status`). */
function within(errors: ErrorObject[], prefix: string): ErrorObject[] {
  return errors
    .filter((e) => e.instancePath === prefix || e.instancePath.startsWith(`${prefix}/`))
    .map((e) => ({ ...e, instancePath: e.instancePath.slice(prefix.length) }));
}

function queryErrors(
  op: ControlOperation,
  errors: ErrorObject[],
  sent: Record<string, string | string[]>,
): ValidationErrors {
  const out: ValidationErrors = {};
  for (const [name, message] of Object.entries(toValidationErrors(errors))) {
    if (!op.queryParams.includes(name))
      out[name] = `is not a query parameter of ${op.operationId}; those are: ${op.queryParams.join(", ")}`;
    // Read as an array by the query parser, which only a repeated name gives: the schemas take one value.
    else if (Array.isArray(sent[name])) out[name] = "is given more than once";
    else out[name] = message;
  }
  return out;
}

/**
 * A body's errors, named by field as toValidationErrors names them. Besides: a field no schema of an
 * allOf evaluates (unevaluatedProperties) is "not allowed" like an additional one; a key refused by
 * propertyNames is named itself; and a value that fits none of a oneOf's forms is named whole, with what
 * its form lacks (alternativesMessage), not with the errors of every form it was tried against.
 */
function bodyErrors(errors: ErrorObject[]): ValidationErrors {
  const alternatives = errors.filter((e) => e.keyword === "oneOf" || e.keyword === "anyOf");
  const inside = (e: ErrorObject, alt: ErrorObject) => e !== alt && e.schemaPath.startsWith(`${alt.schemaPath}/`);
  const outer = alternatives.filter((a) => !alternatives.some((b) => inside(a, b)));
  const mapped: ErrorObject[] = [];
  for (const e of errors) {
    const alt = outer.find((a) => a === e || inside(e, a));
    if (alt === e) {
      const message = alternativesMessage(
        e,
        errors.filter((x) => inside(x, e)),
      );
      mapped.push({ ...e, keyword: "alternatives", message });
    } else if (alt) continue;
    else if (e.keyword === "unevaluatedProperties")
      mapped.push({
        ...e,
        keyword: "additionalProperties",
        params: { additionalProperty: e.params.unevaluatedProperty },
      });
    else if (e.keyword === "propertyNames") continue;
    else if (e.propertyName !== undefined) {
      const reason = toValidationErrors([{ ...e, instancePath: "" }], WHOLE)[WHOLE] ?? e.message;
      const path = `${e.instancePath}/${e.propertyName.replace(/~/g, "~0").replace(/\//g, "~1")}`;
      mapped.push({
        ...e,
        keyword: "propertyName",
        instancePath: path,
        message: `is not allowed as a name: ${reason}`,
      });
    } else mapped.push(e);
  }
  return toValidationErrors(mapped);
}

const WHOLE = "\u0000";

/**
 * Why a value fits none of a oneOf's forms. The forms are told apart by a field of fixed value (a
 * `const` tag, as `distribution` in Latency): the one form whose tag the value has says what is missing
 * or wrong ("sigma is required"); when no form has its tag, the tags are listed. Errors common to every
 * form ("must be object") are said once.
 */
function alternativesMessage(alt: ErrorObject, inner: ErrorObject[]): string {
  const forms = new Map<string, ErrorObject[]>();
  for (const e of inner) {
    const form = e.schemaPath.slice(alt.schemaPath.length + 1).split("/")[0];
    forms.set(form, [...(forms.get(form) ?? []), e]);
  }
  const depth = alt.instancePath.split("/").length + 1;
  const tagErrors = (list: ErrorObject[]) =>
    list.filter(
      (e) =>
        (e.keyword === "const" || e.keyword === "enum") &&
        e.instancePath.startsWith(`${alt.instancePath}/`) &&
        e.instancePath.split("/").length === depth,
    );
  const describe = (list: ErrorObject[]) =>
    Object.entries(
      toValidationErrors(
        list.map((e) => ({ ...e, instancePath: e.instancePath.slice(alt.instancePath.length) })),
        WHOLE,
      ),
    )
      .map(([field, message]) => (field === WHOLE ? message : `${field} ${message}`))
      .join("; ");
  const lists = [...forms.values()];
  const tagged = lists.filter((list) => tagErrors(list).length === 0);
  if (lists.length > 1 && tagged.length === 1) return describe(tagged[0]);
  const tags = lists.flatMap(tagErrors);
  if (tags.length > 0 && tags.length === lists.length && new Set(tags.map((t) => t.instancePath)).size === 1) {
    const field = tags[0].instancePath.slice(alt.instancePath.length + 1);
    const values = tags.flatMap((t) => (t.keyword === "const" ? [t.params.allowedValue] : t.params.allowedValues));
    return `${field} must be one of: ${values.join(", ")}`;
  }
  const described = new Set(lists.map(describe));
  if (described.size === 1 && lists.length > 0) return [...described][0];
  return alt.message ?? "fits none of its forms";
}

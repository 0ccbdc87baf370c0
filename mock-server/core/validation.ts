/**
 * Validators compiled at `npm run generate` (generated/validators.js: ajv standalone code), so none is
 * compiled at start and nothing is evaluated from strings, which a browser with a strict CSP forbids.
 * Here: their errors turned into the reference's validationErrors, and a cache of the objects a
 * validator passed (each Contract keeps its own).
 */
import type { CompiledValidator, operationValidators, schemaValidators } from "../../generated/validators.js";
import type { ValidationErrors } from "./errors.js";

export type { CompiledValidator };

/** The validators of one spec; a Contract holds them with the document they were compiled from. */
export interface GeneratedValidators {
  operationValidators: typeof operationValidators;
  schemaValidators: typeof schemaValidators;
}

interface ValidatorError {
  keyword: string;
  instancePath: string;
  params: Record<string, any>;
  message?: string;
}

/**
 * ajv errors -> validationErrors: field name -> message. Query and path parameters are named as sent;
 * body fields by dotted path (`apiKey.value`, `testCases[0]`).
 */
export function toValidationErrors(errors: ValidatorError[] | null | undefined, root?: string): ValidationErrors {
  const out: ValidationErrors = {};
  for (const error of errors ?? []) {
    if (error.keyword === "oneOf" || error.keyword === "anyOf" || error.keyword === "if") continue;
    const segments = error.instancePath
      .split("/")
      .slice(1)
      .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
    let message = error.message ?? "is invalid";
    if (error.keyword === "required") segments.push(String(error.params.missingProperty)), (message = "is required");
    if (error.keyword === "additionalProperties")
      segments.push(String(error.params.additionalProperty)), (message = "is not allowed");
    if (error.keyword === "enum") message = `must be one of: ${(error.params.allowedValues as unknown[]).join(", ")}`;
    if (error.keyword === "discriminator")
      message = error.params.error === "mapping" ? `must be one of: API_KEY, BEARER, BASIC, NONE` : "is required";
    if (error.keyword === "discriminator") segments.push(String(error.params.tag));
    const field = fieldName(segments, root);
    if (!(field in out)) out[field] = message;
  }
  return out;
}

function fieldName(segments: string[], root?: string): string {
  let name = "";
  for (const s of segments) name += /^\d+$/.test(s) ? `[${s}]` : name ? `.${s}` : s;
  return name || root || "body";
}

/**
 * Stored records are never changed in place (Collection.replace swaps in a new object), so a record
 * object that passed a validator once passes it for as long as it is served: validating it again on
 * every read was most of the cost of response validation. Each validator keeps the objects it passed.
 */
export class PassedObjects {
  private readonly passed = new WeakMap<CompiledValidator, WeakSet<object>>();

  /** `validate(value)`, answered from memory for an object this validator passed before. */
  validate(validate: CompiledValidator, value: unknown): boolean {
    if (typeof value !== "object" || value === null) return validate(value);
    let seen = this.passed.get(validate);
    if (seen?.has(value)) return true;
    if (!validate(value)) return false;
    if (!seen) this.passed.set(validate, (seen = new WeakSet()));
    seen.add(value);
    return true;
  }
}

/**
 * What is wrong with a reply against what its operation documents for its status, or undefined when it
 * fits: `check` is the status's body check, null for a status documented with no body, undefined for an
 * undocumented status. API and control-plane replies are judged, and worded, alike.
 */
export function replyDrift(
  reply: { status: number; body?: unknown },
  check: ((body: unknown) => boolean) | null | undefined,
  errors: () => readonly { instancePath: string; message?: string }[],
): string | undefined {
  if (check === undefined) return `status ${reply.status} is not documented`;
  if (check === null) return reply.body === undefined ? undefined : `status ${reply.status} must have no body`;
  if (check(reply.body)) return undefined;
  const detail = errors()
    .slice(0, 5)
    .map((e) => `${e.instancePath || "/"} ${e.message}`)
    .join("; ");
  return `body of ${reply.status} does not match the spec: ${detail}`;
}

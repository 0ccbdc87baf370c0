/**
 * The bundled spec, loaded once, and the ajv instances compiled from it. Request validation coerces
 * query and path strings and fills documented defaults; response validation checks exactly.
 */
import { readFileSync } from "node:fs";
import type { Ajv2020 } from "ajv/dist/2020.js";
import type { ErrorObject, ValidateFunction } from "ajv";
import { createOpenApiAjv } from "./ajv.js";

export type OpenApiDocument = {
  paths: Record<string, Record<string, unknown>>;
  components: Record<string, Record<string, unknown>>;
  [key: string]: unknown;
};

const specUrl = new URL("../../generated/openapi.json", import.meta.url);
let cached: OpenApiDocument | undefined;

export function loadSpec(): OpenApiDocument {
  cached ??= JSON.parse(readFileSync(specUrl, "utf8")) as OpenApiDocument;
  return cached;
}

export const SPEC_ID = "openapi.json";

function makeAjv(kind: "request" | "response" | "params"): Ajv2020 {
  const ajv = createOpenApiAjv({ discriminator: true, coerceTypes: kind === "params", useDefaults: kind === "params" });
  ajv.addSchema(anchored(loadSpec()) as object, SPEC_ID);
  return ajv;
}

const instances: Partial<Record<"request" | "response" | "params", Ajv2020>> = {};

/** Made on first use: a mock with response validation off never builds the response instance. */
export function ajvFor(kind: "request" | "response" | "params"): Ajv2020 {
  return (instances[kind] ??= makeAjv(kind));
}

/**
 * Prepares a spec fragment for ajv: local refs (#/components/...) resolve in the spec document, and
 * discriminator mappings are dropped (ajv refuses them; each branch's `const` tag says the same).
 */
export function anchored(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(anchored);
  if (schema && typeof schema === "object") {
    return Object.fromEntries(
      Object.entries(schema).map(([k, v]) => {
        if (k === "$ref" && typeof v === "string" && v.startsWith("#")) return [k, SPEC_ID + v];
        if (k === "discriminator" && v && typeof v === "object") return [k, { propertyName: (v as { propertyName: string }).propertyName }];
        return [k, anchored(v)];
      }),
    );
  }
  return schema;
}

export function compile(kind: "request" | "response" | "params", schema: unknown): ValidateFunction {
  return ajvFor(kind).compile(anchored(schema) as object);
}

/** Resolves a `$ref` to a component of the spec (parameters, responses, schemas, examples). */
export function deref<T = Record<string, unknown>>(node: unknown): T {
  let current = node as { $ref?: string };
  for (let hops = 0; current && typeof current.$ref === "string" && hops < 10; hops++) {
    const parts = current.$ref.replace(/^#\//, "").split("/").map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
    current = parts.reduce<any>((at, key) => at?.[key], loadSpec());
  }
  return current as T;
}

/**
 * ajv errors -> validationErrors: field name -> message. Query and path parameters are named as sent;
 * body fields by dotted path (`apiKey.value`, `testCases[0]`).
 */
export function toValidationErrors(errors: ErrorObject[] | null | undefined, root?: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const error of errors ?? []) {
    if (error.keyword === "oneOf" || error.keyword === "anyOf" || error.keyword === "if") continue;
    const segments = error.instancePath.split("/").slice(1).map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
    let message = error.message ?? "is invalid";
    if (error.keyword === "required") segments.push(String(error.params.missingProperty)), (message = "is required");
    if (error.keyword === "additionalProperties") segments.push(String(error.params.additionalProperty)), (message = "is not allowed");
    if (error.keyword === "enum") message = `must be one of: ${(error.params.allowedValues as unknown[]).join(", ")}`;
    if (error.keyword === "discriminator") message = error.params.error === "mapping" ? `must be one of: API_KEY, BEARER, BASIC, NONE` : "is required";
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

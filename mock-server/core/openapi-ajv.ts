/**
 * The one way this kit builds a JSON Schema validator for OpenAPI 3.1 documents: ajv with the 2020-12
 * dialect, ajv-formats, and the OpenAPI format registry's numeric formats checked for real. The
 * generator compiles the mock's validators through here (generated/validators.js); the conformance
 * suite and the tests compile at run time through here too, so both judge alike.
 * Lives in the mock's bottom layer: the generator (scripts/), the mock and the suite all build on it.
 */
import { Ajv2020, type Options } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { openApiFormats } from "./openapi-formats.js";

// ajv-formats is CommonJS; under ESM its function may arrive wrapped in `default`.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => void;

export function createOpenApiAjv(options: Options = {}): Ajv2020 {
  // strictNumbers: JSON.parse turns 1e400 into Infinity, which must not pass as a number (it would be
  // stored, then serialised as null, breaking the response schema). Not when coercing query strings:
  // ajv then lets a coerced "Infinity" through every other keyword, where int32 alone refuses it.
  const ajv = new Ajv2020({
    strict: false,
    strictNumbers: !options.coerceTypes,
    allErrors: true,
    validateFormats: true,
    ...options,
  });
  addFormats(ajv);
  // Added as objects of openApiFormats (not closures) so that standalone code can refer to them by name.
  for (const name of ["int32", "int64", "float", "double"] as const) ajv.addFormat(name, openApiFormats[name]);
  return ajv;
}

/** The id under which the bundled spec is added to an ajv instance. */
export const SPEC_ID = "openapi.json";

/**
 * Prepares a spec fragment for ajv: local refs (#/components/...) resolve in the spec document added
 * as SPEC_ID, and discriminator mappings are dropped (ajv refuses them; each branch's `const` tag says the same).
 */
export function anchored(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(anchored);
  if (schema && typeof schema === "object") {
    return Object.fromEntries(
      Object.entries(schema).map(([k, v]) => {
        if (k === "$ref" && typeof v === "string" && v.startsWith("#")) return [k, SPEC_ID + v];
        if (k === "discriminator" && v && typeof v === "object")
          return [k, { propertyName: (v as { propertyName: string }).propertyName }];
        return [k, anchored(v)];
      }),
    );
  }
  return schema;
}

/**
 * The one way this kit builds a JSON Schema validator for OpenAPI 3.1 documents: ajv with the 2020-12
 * dialect, ajv-formats, and the OpenAPI format registry's numeric formats checked for real. The mock,
 * the conformance suite and the spec tests all compile through here.
 */
import { Ajv2020, type Options } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

// ajv-formats is CommonJS; under ESM its function may arrive wrapped in `default`.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => void;

const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };

export function createOpenApiAjv(options: Options = {}): Ajv2020 {
  // strictNumbers: JSON.parse turns 1e400 into Infinity, which must not pass as a number (it would be
  // stored, then serialised as null, breaking the response schema). Not when coercing query strings:
  // ajv then lets a coerced "Infinity" through every other keyword, where int32 alone refuses it.
  const ajv = new Ajv2020({ strict: false, strictNumbers: !options.coerceTypes, allErrors: true, validateFormats: true, ...options });
  addFormats(ajv);
  // https://spec.openapis.org/registry/format/
  ajv.addFormat("int32", { type: "number", validate: (n: number) => Number.isInteger(n) && n >= INT32.min && n <= INT32.max });
  ajv.addFormat("int64", { type: "number", validate: (n: number) => Number.isSafeInteger(n) });
  ajv.addFormat("float", { type: "number", validate: (n: number) => Number.isFinite(n) });
  ajv.addFormat("double", { type: "number", validate: (n: number) => Number.isFinite(n) });
  return ajv;
}

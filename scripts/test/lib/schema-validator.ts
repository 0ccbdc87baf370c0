/**
 * Ajv (JSON Schema 2020-12, the dialect of OpenAPI 3.1) over a whole bundled document, so that any
 * JSON pointer into it can be compiled and every `$ref` resolves through the document.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import type { ErrorObject, ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import type { JsonObject } from "./openapi-doc.js";

// ajv-formats is CommonJS; under ESM its function may arrive wrapped in `default`.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => void;

const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };

export interface DocumentValidator {
  /** Ajv errors of `value` against the schema at `schemaPointer` (empty when it is valid). */
  errors(schemaPointer: string, value: unknown): string[];
}

function describe(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((e) => `${e.instancePath || "(root)"} ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`);
}

export function documentValidator(doc: JsonObject, id: string): DocumentValidator {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  // OpenAPI format registry (https://spec.openapis.org/registry/format/): checked, not just ignored.
  ajv.addFormat("int32", { type: "number", validate: (n: number) => Number.isInteger(n) && n >= INT32.min && n <= INT32.max });
  ajv.addFormat("int64", { type: "number", validate: (n: number) => Number.isSafeInteger(n) });
  ajv.addFormat("float", { type: "number", validate: (n: number) => Number.isFinite(n) });
  ajv.addFormat("double", { type: "number", validate: (n: number) => Number.isFinite(n) });
  ajv.addSchema(doc, id);
  const cache = new Map<string, ValidateFunction>();
  return {
    errors(schemaPointer, value) {
      const validate = cache.get(schemaPointer) ?? ajv.compile({ $ref: `${id}#${encodeURI(schemaPointer)}` });
      cache.set(schemaPointer, validate);
      return validate(value) ? [] : describe(validate.errors);
    },
  };
}

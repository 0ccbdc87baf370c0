/**
 * Ajv (JSON Schema 2020-12, the dialect of OpenAPI 3.1) over a whole bundled document, so that any
 * JSON pointer into it can be compiled and every `$ref` resolves through the document.
 */
import type { ErrorObject, ValidateFunction } from "ajv";
import { createOpenApiAjv } from "../../../mock-server/core/openapi-ajv.js";
import type { JsonObject } from "./openapi-doc.js";

export interface DocumentValidator {
  /** Ajv errors of `value` against the schema at `schemaPointer` (empty when it is valid). */
  errors(schemaPointer: string, value: unknown): string[];
}

function describe(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map(
    (e) => `${e.instancePath || "(root)"} ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`,
  );
}

export function documentValidator(doc: JsonObject, id: string): DocumentValidator {
  const ajv = createOpenApiAjv();
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

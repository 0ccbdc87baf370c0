/**
 * The bundled spec as a module (generated/openapi-document.js): no file is read at run time, so the
 * same code serves in Node and in a browser.
 *
 * Nothing here is state. A mock holds the spec it serves, with its validators and everything derived
 * from them, in a Contract of its own (contract.ts): two mocks in one process may serve two specs, and
 * `npm start -- --watch` swaps the running mock's contract, not a module's.
 */
import bundledDocument from "../../generated/openapi-document.js";
import { operationValidators, schemaValidators } from "../../generated/validators.js";
import type { GeneratedValidators } from "./validation.js";

export type OpenApiDocument = typeof bundledDocument;

/** What `npm run generate` produced: the document and the validators compiled from it. */
export interface GeneratedSpec {
  document: OpenApiDocument;
  validators: GeneratedValidators;
  /**
   * Where the spec comes from. Absent: the kit's own spec (`npm run generate`), whose operations the
   * hand-written handlers serve. `document`: another OpenAPI document compiled at run time
   * (compile-spec.ts), served by the generic layer alone under `basePath`, its first server URL's path.
   */
  origin?: { kind: "document"; basePath: string };
}

/** The spec bundled into generated/ at `npm run generate`: what a mock serves unless given another. */
export function generatedSpec(): GeneratedSpec {
  return { document: bundledDocument, validators: { operationValidators, schemaValidators } };
}

/** Resolves a `$ref` to a component of `document` (parameters, responses, schemas, examples). */
export { derefIn } from "./json-ref.js";

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
}

/** The spec bundled into generated/ at `npm run generate`: what a mock serves unless given another. */
export function generatedSpec(): GeneratedSpec {
  return { document: bundledDocument, validators: { operationValidators, schemaValidators } };
}

/** Resolves a `$ref` to a component of `document` (parameters, responses, schemas, examples). */
export function derefIn<T = Record<string, unknown>>(document: unknown, node: unknown): T {
  let current = node as { $ref?: string };
  for (let hops = 0; current && typeof current.$ref === "string" && hops < 10; hops++) {
    const parts = current.$ref
      .replace(/^#\//, "")
      .split("/")
      .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
    current = parts.reduce<any>((at, key) => at?.[key], document);
  }
  return current as T;
}

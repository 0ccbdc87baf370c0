/**
 * The bundled spec as a module (generated/openapi-document.js): no file is read at run time, so the
 * same code serves in Node and in a browser.
 *
 * The spec in use, with its validators, is held here and only here: `npm start -- --watch` installs a
 * regenerated pair (installSpec), and every cache derived from them (the operation table, the
 * routes, /openapi.json, the docs) compares specVersion() with the version it was built from.
 */
import initialDocument from "../../generated/openapi-document.js";
import { currentValidators, installValidators, type GeneratedValidators } from "./validation.js";

export type OpenApiDocument = typeof initialDocument;

/** What `npm run generate` produced: the document and the validators compiled from it. */
export interface GeneratedSpec {
  document: OpenApiDocument;
  validators: GeneratedValidators;
}

let document: OpenApiDocument = initialDocument;
let version = 0;

export function loadSpec(): OpenApiDocument {
  return document;
}

/** Bumped by every install: a cache built at another version is stale. */
export function specVersion(): number {
  return version;
}

export function currentSpec(): GeneratedSpec {
  return { document, validators: currentValidators() };
}

/** Swaps in a document and its validators together; they must come from the same generation. */
export function installSpec(next: GeneratedSpec): void {
  document = next.document;
  installValidators(next.validators);
  version++;
}

/** Resolves a `$ref` to a component of the spec (parameters, responses, schemas, examples). */
export function deref<T = Record<string, unknown>>(node: unknown): T {
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

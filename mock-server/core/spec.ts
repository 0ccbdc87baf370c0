/**
 * The bundled spec as a module (generated/openapi-document.js): no file is read at run time, so the
 * same code serves in Node and in a browser.
 */
import document from "../../generated/openapi-document.js";

export type OpenApiDocument = typeof document;

export function loadSpec(): OpenApiDocument {
  return document;
}

/** Resolves a `$ref` to a component of the spec (parameters, responses, schemas, examples). */
export function deref<T = Record<string, unknown>>(node: unknown): T {
  let current = node as { $ref?: string };
  for (let hops = 0; current && typeof current.$ref === "string" && hops < 10; hops++) {
    const parts = current.$ref.replace(/^#\//, "").split("/").map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
    current = parts.reduce<any>((at, key) => at?.[key], document);
  }
  return current as T;
}

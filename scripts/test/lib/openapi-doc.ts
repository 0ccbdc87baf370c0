/**
 * Read access to the bundled documents in generated/ for the spec tests: loading, JSON pointers and
 * local `$ref` resolution (OpenAPI 3.1 section 4.8.23, Reference Object; RFC 6901 pointers).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** SPEC_TEST_GENERATED_DIR points the spec tests at another bundle (to try them on an altered copy). */
export const generatedDir = process.env.SPEC_TEST_GENERATED_DIR ?? path.join(repoRoot, "generated");

export function loadGenerated(file: "openapi.json" | "mock-control.json"): JsonObject {
  return JSON.parse(readFileSync(path.join(generatedDir, file), "utf8")) as JsonObject;
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** RFC 6901: `~` -> `~0`, `/` -> `~1`. */
export function pointer(segments: readonly (string | number)[]): string {
  return segments.map((s) => `/${String(s).replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");
}

export function atPointer(doc: Json, ptr: string): Json | undefined {
  if (ptr === "" || ptr === "#") return doc;
  const segments = ptr
    .replace(/^#/, "")
    .split("/")
    .slice(1)
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
  let node: Json | undefined = doc;
  for (const segment of segments) {
    if (Array.isArray(node)) node = node[Number(segment)];
    else if (isObject(node)) node = node[segment];
    else return undefined;
  }
  return node;
}

/** Follows local `$ref`s until a node without one; throws on a dangling or remote reference. */
export function deref(doc: JsonObject, node: Json | undefined): Json | undefined {
  const seen = new Set<string>();
  let current = node;
  while (isObject(current) && typeof current.$ref === "string") {
    const ref = current.$ref;
    if (!ref.startsWith("#/")) throw new Error(`non-local $ref ${ref}`);
    if (seen.has(ref)) throw new Error(`$ref cycle through ${ref}`);
    seen.add(ref);
    current = atPointer(doc, ref);
    if (current === undefined) throw new Error(`dangling $ref ${ref}`);
  }
  return current;
}

export function derefObject(doc: JsonObject, node: Json | undefined, what: string): JsonObject {
  const resolved = deref(doc, node);
  if (!isObject(resolved)) throw new Error(`${what} is not an object`);
  return resolved;
}

/** Name of the component a `$ref` points at (`#/components/schemas/Call` -> `Call`). */
export function refName(node: Json | undefined): string | undefined {
  return isObject(node) && typeof node.$ref === "string" ? node.$ref.split("/").pop() : undefined;
}

export const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

export interface OperationRef {
  path: string;
  method: string;
  operation: JsonObject;
  /** Path-level parameters followed by operation-level ones (OpenAPI 3.1 section 4.8.9). */
  parameters: Json[];
}

export function operationsOf(doc: JsonObject, section: "paths" | "webhooks" = "paths"): OperationRef[] {
  const out: OperationRef[] = [];
  const items = isObject(doc[section]) ? doc[section] : {};
  for (const [p, rawItem] of Object.entries(items)) {
    const item = derefObject(doc, rawItem, `${section}${p}`);
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const params = [
        ...(Array.isArray(item.parameters) ? item.parameters : []),
        ...(Array.isArray(operation.parameters) ? operation.parameters : []),
      ];
      out.push({ path: p, method, operation, parameters: params });
    }
  }
  return out;
}

/** Every `x-assumption` value in the document, with its pointer. */
export function assumptions(doc: Json, at: (string | number)[] = []): { ptr: string; value: Json }[] {
  const found: { ptr: string; value: Json }[] = [];
  if (Array.isArray(doc)) doc.forEach((v, i) => found.push(...assumptions(v, [...at, i])));
  else if (isObject(doc)) {
    for (const [key, value] of Object.entries(doc)) {
      if (key === "x-assumption") found.push({ ptr: pointer([...at, key]), value });
      else found.push(...assumptions(value, [...at, key]));
    }
  }
  return found;
}

/** The `x-assumption` on a node or, when it is a `$ref`, on anything along the reference chain. */
export function assumptionOf(doc: JsonObject, node: Json | undefined): string | undefined {
  let current = node;
  for (let i = 0; i < 16 && isObject(current); i++) {
    if (typeof current["x-assumption"] === "string") return current["x-assumption"];
    if (typeof current.$ref !== "string") return undefined;
    current = atPointer(doc, current.$ref);
  }
  return undefined;
}

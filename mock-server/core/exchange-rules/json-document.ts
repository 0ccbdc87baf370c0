/**
 * An OpenAPI document as parsed JSON, and the pointer arithmetic the rules need on it. The rules take
 * any document object (the bundled spec, a spec a mock was started with), never a file.
 */
import { derefIn } from "../spec.js";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export function escapePointer(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

export function resolvePointer(doc: Json, pointer: string): Json | undefined {
  let node: Json | undefined = doc;
  for (const raw of pointer.split("/").slice(1)) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (node === null || typeof node !== "object") return undefined;
    node = Array.isArray(node) ? node[Number(key)] : node[key];
  }
  return node;
}

const isRef = (node: Json | undefined): node is { $ref: string } =>
  !!node && typeof node === "object" && !Array.isArray(node) && typeof node.$ref === "string";

/** Resolves a local $ref chain ("#/components/...") inside the document: the mock's own derefIn. */
export function deref(node: Json | undefined, doc: JsonObject): Json | undefined {
  return derefIn<Json | undefined>(doc, node);
}

/**
 * The pointer of what `node` (found at `at`) stands for: `at` itself, or where its $ref chain ends. A
 * validator compiled from that pointer sees the node as the document holds it, whichever way it is written.
 */
export function targetPointer(node: Json | undefined, at: string, doc: JsonObject): string {
  let pointer = at;
  let current = node;
  for (let hops = 0; hops < 20 && isRef(current); hops++) {
    pointer = current.$ref.replace(/^#/, "");
    current = resolvePointer(doc, pointer);
  }
  return pointer;
}

/**
 * Resolves a `$ref` to a component of `document` (parameters, responses, schemas, examples).
 * Shared by the generator, the mock and the suite; nothing here imports generated/.
 */
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

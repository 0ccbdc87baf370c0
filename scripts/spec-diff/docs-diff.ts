/**
 * Documentation-only edits: descriptions, summaries, titles, examples, externalDocs and `x-*`
 * extensions (x-assumption above all), plus info, tags and servers. They never break a client, so
 * they are counted per operation or component instead of listed one by one. The two documents are
 * walked side by side without resolving $refs, so an example edited in a shared component counts
 * once, where it is written, not once per operation that uses it.
 */
import type { DocSummary } from "./model.js";
import { isObj } from "./view.js";

const DOC_KEYWORDS = new Set(["description", "summary", "title", "example", "examples", "externalDocs"]);
/** Maps whose keys are names (a property called `description` is not a description). */
const NAMED = new Set([
  "properties",
  "patternProperties",
  "$defs",
  "schemas",
  "parameters",
  "responses",
  "requestBodies",
  "headers",
  "securitySchemes",
  "links",
  "callbacks",
  "paths",
  "webhooks",
  "content",
  "encoding",
  "variables",
  "mapping",
]);
/** Values, not schemas: the semantic differ owns them. */
const OPAQUE = new Set(["enum", "const", "default", "required"]);
const DOCUMENT_LEVEL = ["info", "tags", "servers", "externalDocs"];
const METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);

/** Who a change at `path` belongs to: the operation, or the component, it is written in. */
function owner(path: string[]): string {
  const [top, a, b] = path;
  if ((top === "paths" || top === "webhooks") && a !== undefined) {
    if (b !== undefined && METHODS.has(b))
      return top === "paths" ? `${b.toUpperCase()} ${a}` : `webhook ${a} (${b.toUpperCase()})`;
    return top === "paths" ? `path ${a}` : `webhook ${a}`;
  }
  if (top === "components" && a !== undefined && b !== undefined) return `components.${a}.${b}`;
  return top ?? "document";
}

export function diffDocumentation(base: unknown, head: unknown): DocSummary[] {
  const found = new Map<string, { count: number; keys: Set<string> }>();
  const record = (path: string[], key: string): void => {
    const name = owner(path);
    const entry = found.get(name) ?? { count: 0, keys: new Set<string>() };
    entry.count += 1;
    entry.keys.add(key);
    found.set(name, entry);
  };
  const walk = (b: unknown, h: unknown, path: string[], namesHere: boolean): void => {
    if (Array.isArray(b) && Array.isArray(h)) {
      for (let i = 0; i < Math.min(b.length, h.length); i++) walk(b[i], h[i], [...path, String(i)], false);
      return;
    }
    if (!isObj(b) || !isObj(h)) return;
    for (const key of new Set([...Object.keys(b), ...Object.keys(h)])) {
      const keyword =
        !namesHere &&
        (DOC_KEYWORDS.has(key) || key.startsWith("x-") || (path.length === 0 && DOCUMENT_LEVEL.includes(key)));
      if (keyword) {
        if (JSON.stringify(b[key]) !== JSON.stringify(h[key])) record(path.length === 0 ? [key] : path, key);
      } else if (key in b && key in h && !(OPAQUE.has(key) && !namesHere)) {
        // components and its maps (schemas, examples...) are keyed by names, like properties.
        const names =
          path.length === 0
            ? key === "components" || NAMED.has(key)
            : (path.length === 1 && path[0] === "components") || (!namesHere && NAMED.has(key));
        walk(b[key], h[key], [...path, key], names);
      }
    }
  };
  walk(base, head, [], false);
  return [...found].map(([name, { count, keys }]) => ({ owner: name, count, keys: [...keys].sort() }));
}

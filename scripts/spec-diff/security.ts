/**
 * Security, compared as a client sees it: the requirement an operation ends up with (its own
 * `security`, else the document's) and the definition of each scheme. Any difference means
 * clients must send other credentials, so every one of them is breaking.
 */
import type { Change } from "./model.js";
import { isObj, resolve, type Obj } from "./view.js";

const obj = (value: unknown): Obj => (isObj(value) ? value : {});

/** Effective security of an operation, canonical: alternatives joined by " | ", schemes of one alternative by " + ". */
export function security(doc: Obj, op: Obj): string {
  const requirements = Array.isArray(op.security) ? op.security : Array.isArray(doc.security) ? doc.security : [];
  const alternatives = requirements.map(
    (r) =>
      Object.entries(obj(r))
        .map(([name, scopes]) =>
          Array.isArray(scopes) && scopes.length ? `${name}(${[...scopes].sort().join(",")})` : name,
        )
        .sort()
        .join(" + ") || "anonymous",
  );
  return alternatives.length ? [...new Set(alternatives)].sort().join(" | ") : "none";
}

/** A security scheme's definition changed (documentation aside): every client of it must change. */
export function compareSchemes(changes: Change[], base: Obj, head: Obj): void {
  const schemes = (doc: Obj) => obj(obj(doc.components).securitySchemes);
  const before = schemes(base);
  const after = schemes(head);
  const strip = (doc: Obj, v: unknown): string => {
    const rest = Object.entries(obj(resolve(doc, v).node)).filter(([k]) => k !== "description" && !k.startsWith("x-"));
    return JSON.stringify(Object.fromEntries(rest));
  };
  for (const name of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const where = `components.securitySchemes.${name}`;
    const location = { part: "scheme" as const, scheme: name };
    if (!(name in after)) changes.push({ severity: "breaking", where, message: "security scheme removed", location });
    else if (!(name in before))
      changes.push({ severity: "non-breaking", where, message: "security scheme added", location });
    else if (strip(base, before[name]) !== strip(head, after[name])) {
      changes.push({
        severity: "breaking",
        where,
        message: `security scheme changed: ${strip(base, before[name])} -> ${strip(head, after[name])}`,
        location,
      });
    }
  }
}

/**
 * The coverage report as GET /__mock/coverage serves it (DESIGN.md, "What was exercised"; the schema
 * Coverage of spec/mock-control.yaml). `readCoverage` checks an answer is one, so the answer of another
 * server, or of another version of the mock, is refused with the reason rather than reported as 0 %.
 */
import type { components } from "../../generated/mock-control.js";

export type Coverage = components["schemas"]["Coverage"];
export type CoverageVariant = components["schemas"]["CoverageVariant"];
export type RecipeRequest = components["schemas"]["RecipeRequest"];

const KINDS: readonly string[] = ["status", "page", "enum", "nullable", "webhook"];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The coverage of an answer, or the first reason it is not one. */
export function readCoverage(body: unknown): { coverage: Coverage } | { problem: string } {
  if (!isObject(body)) return { problem: "the answer is not a JSON object" };
  if (typeof body.workspaceId !== "string") return { problem: "it has no workspaceId (a string)" };
  if (typeof body.percent !== "number" || body.percent < 0 || body.percent > 100)
    return { problem: "it has no percent (a number from 0 to 100)" };
  if (!Array.isArray(body.variants)) return { problem: "it has no variants (an array)" };
  for (const [i, v] of body.variants.entries()) {
    if (!isObject(v)) return { problem: `variant ${i} is not an object` };
    for (const field of ["operationId", "value", "howTo"] as const)
      if (typeof v[field] !== "string") return { problem: `variant ${i} has no ${field} (a string)` };
    if (!KINDS.includes(v.kind as string))
      return { problem: `variant ${i} has kind ${JSON.stringify(v.kind)}, not one of ${KINDS.join(", ")}` };
    if (typeof v.seen !== "boolean") return { problem: `variant ${i} has no seen (a boolean)` };
    if (v.recipe !== undefined && !Array.isArray(v.recipe))
      return { problem: `variant ${i} has a recipe that is not an array` };
  }
  return { coverage: body as Coverage };
}

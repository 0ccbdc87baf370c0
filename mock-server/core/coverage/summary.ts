/**
 * The coverage report of DESIGN.md ("What was exercised") from a set of seen variant keys: every variant
 * in catalogue order with whether it was seen and how to provoke it, and the percent, floor(100 * seen /
 * all). The control plane's GET /__mock/coverage and the offline `agent-platform-mock coverage --from`
 * both build it here, so the two count alike; recipes are the control plane's to add.
 */
import type { components } from "../../../generated/mock-control.js";
import type { Catalogue, VariantDef } from "./catalogue.js";

export type Coverage = components["schemas"]["Coverage"];
export type CoverageVariant = components["schemas"]["CoverageVariant"];

/** floor(100 * seen / all); 100 when there is nothing to see. */
export function coveragePercent(seen: number, all: number): number {
  return all === 0 ? 100 : Math.floor((100 * seen) / all);
}

/**
 * The report of `workspaceId` given the keys it has seen. `judged` keeps only the variants that can be
 * told at all (offline, a journal without bodies judges statuses only): the others are left out of the
 * list and of the percent.
 */
export function coverageSummary(
  catalogue: Catalogue,
  workspaceId: string,
  seen: ReadonlySet<string>,
  judged: (variant: VariantDef) => boolean = () => true,
): Coverage {
  const variants: CoverageVariant[] = [];
  let count = 0;
  for (const v of catalogue.variants) {
    if (!judged(v)) continue;
    const wasSeen = seen.has(v.key);
    if (wasSeen) count++;
    variants.push({ operationId: v.operationId, kind: v.kind, value: v.value, seen: wasSeen, howTo: v.howTo });
  }
  return { workspaceId, percent: coveragePercent(count, variants.length), variants };
}

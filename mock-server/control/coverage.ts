/**
 * Control plane, coverage (GET /__mock/coverage): which of the spec's response variants a workspace's
 * own /v1 traffic has received (the journal keeps the set, core/coverage observes each answer), the
 * webhook deliveries its receivers answered, and for each variant how to provoke it in this workspace.
 */
import { variantCatalogue, type VariantDef } from "../core/coverage/catalogue.js";
import { webhookVariantKey } from "../core/coverage/observe.js";
import { coverageSummary } from "../core/coverage/summary.js";
import { DEFAULT_WORKSPACE_ID } from "../core/defaults.js";
import type { Workspace } from "../store/workspace.js";
import { readRecipes, statusRecipe, webhookRecipe, type RecipeRequest } from "./coverage-recipes.js";
import type { ControlHandlers, ControlServices } from "./types.js";
import { workspaceOf } from "./workspaces.js";

export function coverageHandlers(services: ControlServices): ControlHandlers<"getCoverage"> {
  const { workspaces, journal, contract } = services;
  return {
    getCoverage: {
      handle: async ({ query }) => {
        const workspaceId = query.workspaceId ?? DEFAULT_WORKSPACE_ID;
        const workspace = workspaceOf(workspaces, workspaceId);
        const spec = contract();
        const catalogue = variantCatalogue(spec.document);
        const seen = new Set(await journal.variantsSeen(workspaceId));
        for (const key of answeredDeliveries(catalogue, workspace)) seen.add(key);
        // The reads are asked once for every variant a record shows; statuses and webhooks have their own.
        const reads = readRecipes(catalogue, spec, workspace, services);
        const recipeOf = (variant: VariantDef): RecipeRequest[] | undefined =>
          variant.kind === "status"
            ? statusRecipe(variant, spec, workspace)
            : variant.kind === "webhook"
              ? webhookRecipe(variant, workspace)
              : reads.get(variant.key);
        const report = coverageSummary(catalogue, workspaceId, seen);
        // Every variant is judged here, so the report's variants are the catalogue's, in its order.
        report.variants = report.variants.map((variant, i) => {
          const recipe = recipeOf(catalogue.variants[i]);
          return recipe ? { ...variant, recipe } : variant;
        });
        return { status: 200, body: report };
      },
    },
  };
}

/** The event kinds of deliveries a receiver answered (any HTTP status): those reached the consumer. */
function answeredDeliveries(catalogue: ReturnType<typeof variantCatalogue>, workspace: Workspace): string[] {
  const keys: string[] = [];
  for (const delivery of workspace.outbox.all()) {
    if (!delivery.attempts.some((attempt) => typeof attempt.statusCode === "number")) continue;
    const key = webhookVariantKey(catalogue, delivery.event);
    if (key) keys.push(key);
  }
  return keys;
}

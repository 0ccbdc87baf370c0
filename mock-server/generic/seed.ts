/**
 * Seeds for the generic layer's drawn values. A schema answer is seeded by the workspace and the
 * request (same request, same answer; another workspace, another answer), so drawing it writes
 * nothing; a record's filled fields by the workspace, the collection and the record's id.
 */
import { hash32 } from "../core/random.js";

/** JSON with object keys sorted: equal values give equal text whatever order their keys came in. */
export function stableJson(value: unknown): string {
  if (value === undefined) return "";
  return JSON.stringify(value, (_key, v) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v as object)
            .sort()
            .map((k) => [k, (v as Record<string, unknown>)[k]]),
        )
      : v,
  );
}

export interface SeedSource {
  workspace: { seed: number; workspaceId: string };
}

/** The seed of a request's schema answer: workspace, method, path (with its parameters), query and body. */
export function requestSeed(
  ctx: SeedSource & { params: unknown; query: unknown; body: unknown },
  op: { method: string; path: string },
): number {
  const { workspace } = ctx;
  return hash32(
    [
      workspace.seed,
      workspace.workspaceId,
      op.method,
      op.path,
      stableJson(ctx.params),
      stableJson(ctx.query),
      stableJson(ctx.body),
    ].join("\n"),
  );
}

/** The seed of the fields drawn for one record. */
export function recordSeed(ctx: SeedSource, collection: string, id: string): number {
  return hash32([ctx.workspace.seed, ctx.workspace.workspaceId, collection, id].join("\n"));
}

/** The day of `ms` (UTC midnight): drawn dates move with the clock a day at a time, not with every request. */
export function dayOf(ms: number): Date {
  return new Date(Math.floor(ms / 86_400_000) * 86_400_000);
}

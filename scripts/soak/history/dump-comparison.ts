/**
 * The history checker's comparison of whole collections: each modelled workspace's dumps through a
 * replica against its twin's in the model (after a restart and at quiescence), and for a workspace no
 * longer modelled (a write of unknown outcome, or a seeded world) its acknowledged records against
 * what the store still holds.
 */
import { checkAcked } from "./checks.js";
import type { DriverContext } from "./driver-context.js";
import { compareAnswers, send } from "./model.js";
import { DUMPED } from "./workload.js";
import type { OwnedWorkspace } from "./workspace.js";

const COLLECTIONS: readonly string[] = [...DUMPED, "chats"];

/** GET of a dump or list that must answer 200; its body. */
export async function getJson<T>(base: string, path: string): Promise<T> {
  const answer = await send(base, "GET", path);
  if (answer.status !== 200)
    throw new Error(`GET ${path}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
  return answer.body as T;
}

/** Compares every collection of each modelled workspace with its twin, each through another live replica. */
export async function compareDumps(
  ctx: DriverContext,
  workspaces: OwnedWorkspace[],
  quiescent: boolean,
  collections: readonly string[] = COLLECTIONS,
): Promise<number> {
  let compared = 0;
  for (const w of workspaces) {
    if (w.deleted) continue;
    const live = ctx.topology.live();
    const replica = live[(w.owner + compared + 1) % live.length];
    if (w.unresolved) {
      const dumped = new Map<string, string[]>();
      for (const [collection] of w.acked) {
        const records = await getJson<Record<string, unknown>[]>(
          replica.url,
          `/__mock/workspaces/${w.real.id}/${collection}`,
        );
        dumped.set(
          collection,
          records.map((r) => String(r[idField(collection)])),
        );
      }
      ctx.history.anomalies.push(...checkAcked(w.real.id, w.acked, dumped));
      compared++;
      continue;
    }
    for (const collection of collections) {
      const real = await send(replica.url, "GET", `/__mock/workspaces/${w.real.id}/${collection}`);
      const twin = await send(ctx.model.url, "GET", `/__mock/workspaces/${w.twin.id}/${collection}`);
      const diffs = compareAnswers(`dump ${collection}`, twin, real, w.ids, quiescent, true);
      compared++;
      if (diffs.length > 0)
        ctx.history.anomalies.push({
          kind: quiescent ? "lost-write" : "differential",
          message: `${quiescent ? "at quiescence" : "after a restart"}, ${collection} of ${w.real.id} through ${replica.name} differs from the model: ${diffs.slice(0, 4).join("; ")}`,
          workspace: w.real.id,
          at: Date.now(),
        });
    }
  }
  return compared;
}

function idField(collection: string): string {
  return (
    (
      {
        agents: "agentId",
        integrations: "integrationId",
        phoneNumbers: "sipPhoneNumber",
        qaRules: "qaRuleId",
        webhooks: "webhookId",
        testCases: "testCaseId",
        calls: "callId",
        batchRuns: "batchId",
      } as Record<string, string>
    )[collection] ?? "id"
  );
}

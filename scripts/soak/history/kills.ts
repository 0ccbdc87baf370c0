/**
 * The history checker's kills: a live replica SIGKILLed at its moment of the workload (its conflict
 * counters scraped first), a fresh one started in its place, and then, under a barrier, every modelled
 * workspace's time-independent collections compared with the model through the replicas now live.
 */
import { barrier, type DriverContext, type Shared } from "./driver-context.js";
import { compareDumps } from "./dump-comparison.js";
import type { History } from "./history.js";
import { conflictsOf, type Replica } from "./topology.js";
import { TIME_INDEPENDENT } from "./workload.js";

export async function killAndRestart(
  shared: Shared,
  ctx: DriverContext,
  pick: number,
  log: (line: string) => void,
): Promise<void> {
  const live = shared.topology.live();
  if (live.length < 2) return;
  const victim: Replica = live[pick % live.length];
  const before = await conflictsOf(victim).catch(() => ({ conflicts: 0, retries: 0 }));
  shared.scrapedBeforeKill += before.conflicts + before.retries;
  const event = { replica: victim.name, at: Date.now() } as History["kills"][number];
  ctx.history.kills.push(event);
  await shared.topology.kill(victim);
  log(`killed ${victim.name} (pid ${victim.pid}) after ${ctx.completedOps} ops`);
  const fresh = await shared.topology.start();
  event.restartedAs = fresh.name;
  event.restartedAt = Date.now();
  log(`restarted as ${fresh.name} at ${fresh.url}`);
  // After the restart: every modelled workspace's time-independent collections, under a barrier.
  await barrier(ctx, async () => {
    ctx.figures.comparisons += await compareDumps(ctx, ctx.workspaces, false, TIME_INDEPENDENT);
  });
}

/**
 * The parts of the bench as `npm run bench -- --against REV` runs them (against.ts): each part that runs
 * a mock is measured on this tree's and on REV's, its own rounds cut to one (the --against rounds take
 * their place); what does not change with the revision is a baseline. Not here, as they measure this
 * checkout only: part 3 (scale, the mock loaded in-process from the sources), part 4's packed tarball,
 * `npm run generate` and the conformance run.
 */
import type { AgainstPart } from "./against.js";
import { compareTargets, type TargetId } from "./compare.js";
import { measureDashboard, type DashboardPlan } from "./dashboard.js";
import { measureExercised, type ExercisedPlan } from "./exercised.js";
import type { RatioTo } from "./figures.js";
import { measureGateway, type GatewayPlan } from "./gateway.js";
import type { LoadOptions } from "./load.js";
import { measureMswDoor } from "./msw.js";
import { measureSharedStore } from "./shared-store.js";
import { measureSharing, type SharingPlan } from "./sharing.js";
import { startPrismTarget } from "./targets.js";
import { measureStarts, timeStart } from "./tooling.js";
import { measureUploads } from "./uploads.js";
import { measureUpstream, type UpstreamPlan } from "./upstream.js";

/** What of run.ts's FULL or QUICK plan these parts read. */
export interface AgainstPlan {
  load: LoadOptions;
  startSamples: number;
  warmStart: boolean;
  uploadSamples: number;
  roundTripRequests: number;
  gateway: GatewayPlan;
  upstream: UpstreamPlan;
  exercised: ExercisedPlan;
  dashboard: DashboardPlan;
  sharing: SharingPlan;
}

/** Part 1's figures of the mock (c, c-prod) beside bare node:http's (b) and Prism's (d) of the same request. */
export function compareRatios(figure: string): RatioTo[] {
  const match = /^(.*) · (c|cprod) · (rps|cpuUs)$/.exec(figure);
  if (!match) return [];
  const [, scenario, , measure] = match;
  const of = (id: TargetId) => `${scenario} · ${id} · ${measure}`;
  return [
    { label: "bare node:http", figure: of("b") },
    { label: "Prism", figure: of("d") },
  ];
}

/** Part 8's figures of the door beside the bare proxy's, measured on each side beside it. */
export function upstreamRatios(figure: string): RatioTo[] {
  const match = /^(.*) · door · (.*)$/.exec(figure);
  return match ? [{ label: "the bare proxy", figure: `${match[1]} · bare · ${match[2]}` }] : [];
}

export function againstParts(plan: AgainstPlan, command: string): Record<string, AgainstPart> {
  return {
    compare: {
      title: "1. the mock as npm start (c) and with NODE_ENV=production (c-prod); bare node:http, bare Express, Prism",
      measure: (kit, log) => compareTargets(plan.load, log, { kit, targets: ["c", "cprod"] }),
      // bare node:http each round (the ratio that matters most), bare Express and Prism in the first.
      baseline: (round, log) => compareTargets(plan.load, log, { targets: round === 0 ? ["a", "b", "d"] : ["b"] }),
      ratios: compareRatios,
    },
    msw: {
      title: "2. the MSW door (setupServer in Node, fetch in the same process), each kit's dist/",
      measure: (kit, log) => measureMswDoor(plan.load, log, kit),
    },
    starts: {
      title: "4. start times: the mock (node with tsx's loader) and npm start, in each kit's folder; Prism once",
      measure: (kit) => measureStarts(plan.startSamples, plan.warmStart, { kit, prism: false }),
      baseline: (round) =>
        round === 0 ? timeStart(startPrismTarget, plan.startSamples).then((prism) => ({ prism })) : undefined,
    },
    uploads: {
      title: "5. uploads",
      measure: (kit) => measureUploads(plan.uploadSamples, kit),
    },
    store: {
      title: "6. shared store: in memory, --store redis (1 process), --workers 2; Redis round trips",
      measure: (kit, log) => measureSharedStore(plan.load, plan.roundTripRequests, log, kit),
    },
    gateway: {
      title: "7. the conformance suite through an API gateway (this tree's suite and mock, once)",
      baseline: (round, log) => (round === 0 ? measureGateway(command, plan.gateway, log) : undefined),
    },
    upstream: {
      title: "8. the upstream door beside a bare node:http proxy",
      measure: (kit, log) => measureUpstream(command, plan.load, plan.upstream, log, kit),
      ratios: upstreamRatios,
    },
    exercised: {
      title: "9. what was exercised: observing answers for coverage, the HAR journal, coverage and HAR reads",
      measure: (kit, log) => measureExercised(command, plan.load, { ...plan.exercised, rounds: 1 }, log, kit),
    },
    dashboard: {
      title: "10. the dashboard's cost: the event stream read, a reader that stops reading",
      measure: (kit, log) => measureDashboard(command, plan.load, { ...plan.dashboard, rounds: 1 }, log, kit),
    },
    sharing: {
      title: "11. sharing one mock: Redis against in memory, round trips, --workers 1 and 2",
      measure: (kit, log) => measureSharing(command, plan.load, { ...plan.sharing, rounds: 1 }, log, kit),
    },
  };
}

/**
 * runFuzz: a mock in this process on 127.0.0.1:0 (virtual clock, so nothing moves between requests),
 * a fresh seeded workspace, and fast-check sending one case per run. Around every request: the
 * response checks, the store fingerprint (a 4xx must leave it as it was) and the prototypes.
 * On failure fast-check shrinks the case; the smallest one is reported with the seed to replay it.
 */
import fc from "fast-check";
import { exportSnapshot, importSnapshot } from "../../mock-server/store/snapshot.js";
import { startMock } from "../../mock-server/server.js";
import type { Workspace } from "../../mock-server/store/workspace.js";
import { describeCase, type FuzzCase } from "./case.js";
import { fuzzCases, type CaseSources } from "./cases.js";
import { responseProblems } from "./checks.js";
import { describeChange, prototypeChanges, prototypeState, storeFingerprint, unserialisable } from "./invariants.js";
import { FuzzStats } from "./stats.js";
import { closeWire, sendWire } from "./wire.js";

export interface FuzzOptions {
  runs: number;
  seed: number;
  /** fast-check's replay path, printed with a failure. */
  path?: string;
  /** Progress lines (every 1000 requests). */
  progress?: (line: string) => void;
}

export interface FuzzFailure {
  case: FuzzCase;
  status: number | null;
  problems: string[];
  mockLog: string[];
}

export interface FuzzResult {
  seed: number;
  runs: number;
  stats: FuzzStats;
  durationMs: number;
  failure?: FuzzFailure & { replay: string; shrinks: number };
}

/** Valid writes grow the store; going back to the seed state now and then keeps each snapshot cheap. */
const RESTORE_EVERY = 500;

function sourcesOf(workspace: Workspace): CaseSources {
  const ids = <T>(name: keyof Workspace["collections"], id: (r: T) => string) =>
    (workspace.collections[name].all() as T[]).map(id);
  const agents = ids<{ agentId: string }>("agents", (a) => a.agentId);
  const testCases = workspace.collections.testCases.all();
  const withCases = agents.filter((a) => testCases.some((t) => t.agent.agentId === a));
  const batchBody = fc.constantFrom(...withCases).chain((agentId) =>
    fc
      .subarray(
        testCases.filter((t) => t.agent.agentId === agentId).map((t) => t.testCaseId),
        { minLength: 1 },
      )
      .map((cases) => ({ agentId, testCases: cases })),
  );
  return {
    known: {
      agentId: agents,
      inboundAgentId: agents,
      outboundAgentId: agents,
      integrationId: ids<{ integrationId: string }>("integrations", (r) => r.integrationId),
      batchId: ids<{ batchId: string }>("batchRuns", (r) => r.batchId),
      callId: ids<{ callId: string }>("calls", (r) => r.callId),
      qaRuleId: ids<{ qaRuleId: string }>("qaRules", (r) => r.qaRuleId),
      phoneNumber: ids<{ sipPhoneNumber: string }>("phoneNumbers", (r) => r.sipPhoneNumber),
    },
    validBodies: withCases.length > 0 ? { createBatchRun: batchBody } : {},
  };
}

export async function runFuzz(options: FuzzOptions): Promise<FuzzResult> {
  const started = performance.now();
  const mockLog: string[] = [];
  const running = await startMock({ clock: "virtual", log: (line) => void mockLog.push(line) });
  const { workspaces, webhooks } = running.mock.services;
  try {
    const created = await fetch(`${running.url}/__mock/workspaces`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ seed: options.seed >>> 0 }),
    });
    const { workspaceId, apiKey } = (await created.json()) as { workspaceId: string; apiKey: string };
    const workspace = workspaces.get(workspaceId)!;
    const baseline = exportSnapshot(workspace);
    const prototypes = prototypeState();
    const stats = new FuzzStats();
    let last: FuzzFailure | undefined;

    const property = fc.asyncProperty(fuzzCases(sourcesOf(workspace)), async (c) => {
      if (stats.requests > 0 && stats.requests % RESTORE_EVERY === 0) importSnapshot(workspace, baseline);
      if (stats.requests > 0 && stats.requests % 1000 === 0) options.progress?.(`  ${stats.requests} requests`);
      const logFrom = mockLog.length;
      const before = storeFingerprint(workspace, webhooks);
      let problems: string[];
      let status: number | null = null;
      try {
        const response = await sendWire(running.url, apiKey, c.wire);
        status = response.status;
        problems = responseProblems(c, response);
        if (status >= 400 && status < 500) {
          const after = storeFingerprint(workspace, webhooks);
          if (after !== before)
            problems.push(`a rejected request (${status}) changed the store: ${describeChange(before, after)}`);
        } else if (status < 300 && c.wire.method !== "GET" && c.wire.method !== "HEAD") {
          problems.push(
            ...unserialisable(workspace).map((v) => `an accepted write stored a value JSON cannot carry: ${v}`),
          );
        }
      } catch (error) {
        problems = [`no answer: ${(error as Error).message}`];
      }
      stats.add(c, status ?? 0);
      problems.push(...prototypeChanges(prototypes).map((p) => `prototype polluted: ${p}`));
      if (problems.length === 0) return true;
      last = { case: c, status, problems, mockLog: mockLog.slice(logFrom) };
      // Each shrink attempt starts from the seed state, so what one attempt stored does not show in the next.
      importSnapshot(workspace, baseline);
      return false;
    });

    const details = await fc.check(property, {
      numRuns: options.runs,
      seed: options.seed,
      path: options.path,
      endOnFailure: false,
    });
    const result: FuzzResult = {
      seed: options.seed,
      runs: options.runs,
      stats,
      durationMs: performance.now() - started,
    };
    if (details.failed && last) {
      const replay = `npm run fuzz -- --seed ${details.seed} --path ${details.counterexamplePath} --runs ${options.runs}`;
      result.failure = { ...last, replay, shrinks: details.numShrinks };
    } else if (details.failed) {
      result.failure = {
        case: details.counterexample![0],
        status: null,
        problems: [String(details.errorInstance)],
        mockLog,
        replay: `npm run fuzz -- --seed ${details.seed}`,
        shrinks: details.numShrinks,
      };
    }
    return result;
  } finally {
    closeWire();
    await running.close();
  }
}

export function failureReport(failure: NonNullable<FuzzResult["failure"]>): string {
  return [
    `Counterexample (after ${failure.shrinks} shrinks), answered ${failure.status ?? "nothing"}:`,
    describeCase(failure.case).replace(/^/gm, "  "),
    "Problems:",
    ...failure.problems.map((p) => `  - ${p}`),
    ...(failure.mockLog.length > 0
      ? ["Mock log:", ...failure.mockLog.slice(-5).map((l) => `  ${l.slice(0, 2000)}`)]
      : []),
    `Replay: ${failure.replay}`,
  ].join("\n");
}

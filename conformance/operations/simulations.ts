/** E6 create batch run, E7 get batch run and E8 list test runs (2.7). */
import { randomUUID } from "node:crypto";
import { defineRules, obj, type RuleContext } from "../lib/rule.js";
import { checkFilter, listOf, walk, type ListConfig } from "./list-pages.js";
import { orderRule } from "./ordering.js";
import { paginationRules } from "./pagination.js";
import { differences, getMatchesStore, listMatchesStore, sameMembers } from "./store-agreement.js";

const runs: ListConfig = {
  ...listOf("listTestRuns"),
  path: "/v1/test-runs",
  idOf: (r) => r.jobId,
  emptyQuery: (f) => (f.idleAgentId ? { agentId: f.idleAgentId } : undefined),
};
const batchPath = (id: string) => `/v1/batch-runs/${encodeURIComponent(id)}`;

function counters(t: RuleContext, batch: Record<string, any>): void {
  const { successfulAttempts: ok, failedAttempts: failed, totalAttempts: total } = batch;
  if (![ok, failed, total].every(Number.isInteger)) return;
  t.expect(ok + failed <= total, {
    pointer: "/totalAttempts",
    expected: `>= successful + failed (${ok + failed})`,
    actual: total,
    message: "attempts evaluated successful or failed were executed",
  });
  t.expect(ok + failed === total, {
    pointer: "/totalAttempts",
    expected: ok + failed,
    actual: total,
    message: "every executed attempt is evaluated (assumption)",
    assumed: true,
  });
}

async function createBatch(t: RuleContext): Promise<Record<string, any> | undefined> {
  const { agentId, testCaseIds } = t.fixtures;
  if (!agentId || testCaseIds.length === 0)
    return t.skip("no agent with a test case known (pass --agent-id and --test-case-id)");
  const ex = await t.call("createBatchRun", {
    method: "POST",
    path: "/v1/batch-runs",
    body: { agentId, testCases: testCaseIds },
  });
  if (!t.expectStatus(ex, 201, "E6 answers 201")) return undefined;
  return obj(ex);
}

export const simulationRules = defineRules("simulations", [
  // Reads first: the test run list holds the fixtures' 30 runs while its pages are checked, before
  // the rules below that create batch runs add more.
  {
    id: "getBatchRun.known",
    operationId: "getBatchRun",
    level: "documented",
    readOnly: true,
    description: "E7 returns the batch asked for, with consistent counters.",
    run: async (t) => {
      const batchId = t.fixtures.batchId;
      if (!batchId) return t.skip("no batch run known (pass --batch-id)");
      const ex = await t.call("getBatchRun", { method: "GET", path: batchPath(batchId) });
      if (!t.expectStatus(ex, 200)) return;
      t.expectEqual(obj(ex).batchId, batchId, "/batchId", "E7 returns the batch asked for");
      counters(t, obj(ex));
      const agentId = obj(ex).agent?.agentId;
      if (agentId)
        t.expectStatus(
          await t.call("getBatchRun", { method: "GET", path: batchPath(batchId), query: { agentId } }),
          200,
          "agentId of the batch's own agent",
        );
    },
  },
  {
    id: "getBatchRun.counters-match-test-runs",
    operationId: "getBatchRun",
    level: "documented",
    readOnly: true,
    description:
      "Once its test runs have all completed, a batch's successfulAttempts and failedAttempts count its runs evaluated successful and failed (E7 and E8).",
    run: async (t) => {
      const batchIds = [t.fixtures.batchId, t.fixtures.otherBatchId].filter((id): id is string => !!id);
      if (batchIds.length === 0) return t.skip("no batch run known (pass --batch-id)");
      let compared = 0;
      for (const batchId of batchIds) {
        const ex = await t.call("getBatchRun", { method: "GET", path: batchPath(batchId) });
        if (!t.expectStatus(ex, 200)) continue;
        const listed = await walk(t, runs, { batchId }, 10, 20);
        if (
          !listed?.complete ||
          listed.items.length === 0 ||
          listed.items.some((r) => typeof r.isSuccessful !== "boolean")
        )
          continue;
        compared++;
        const count = (value: boolean) => listed.items.filter((r) => r.isSuccessful === value).length;
        t.expectEqual(
          obj(ex).successfulAttempts,
          count(true),
          "/successfulAttempts",
          `E8 lists ${count(true)} successful test runs of batch ${batchId}`,
          { exchange: ex },
        );
        t.expectEqual(
          obj(ex).failedAttempts,
          count(false),
          "/failedAttempts",
          `E8 lists ${count(false)} failed test runs of batch ${batchId}`,
          { exchange: ex },
        );
      }
      if (compared === 0) t.skip("no batch run whose test runs have all completed");
    },
  },
  {
    id: "getBatchRun.other-agent",
    operationId: "getBatchRun",
    level: "assumed",
    readOnly: true,
    description: "agentId naming another agent than the batch's answers 404 (assumption).",
    run: async (t) => {
      const { batchId, otherAgentId } = t.fixtures;
      if (!batchId || !otherAgentId) return t.skip("needs a batch run and a second agent");
      t.expectStatus(
        await t.call("getBatchRun", { method: "GET", path: batchPath(batchId), query: { agentId: otherAgentId } }),
        404,
      );
    },
  },
  {
    id: "getBatchRun.unknown-id",
    operationId: "getBatchRun",
    level: "documented",
    readOnly: true,
    description: "An unknown batchId answers 404.",
    run: async (t) =>
      void t.expectStatus(await t.call("getBatchRun", { method: "GET", path: batchPath(randomUUID()) }), 404),
  },
  getMatchesStore(
    "getBatchRun",
    { collection: "batchRuns", idOf: (b) => b.batchId, version: (b) => b.totalAttempts ?? 0 },
    (_f, stored) => [...stored.keys()],
    batchPath,
  ),
  ...paginationRules(runs),
  listMatchesStore(runs, { collection: "testRuns", idOf: (r) => r.jobId, version: (r) => (r.completedDate ? 1 : 0) }),
  // A batch's runs share one createdDate; E6 runs its test cases "in parallel", so their order among themselves is the kit's.
  orderRule(runs, {
    storeOrder: { collection: "testRuns", idOf: (r) => r.jobId },
    knownLevel: "assumed",
  }),
  {
    id: "listTestRuns.filters",
    operationId: "listTestRuns",
    level: "documented",
    readOnly: true,
    description:
      "Neither, batchId, agentId and both, each walked over several pages: only the test runs of that batch run and agent, newest first as without a filter (a batch run with another agent lists none).",
    run: async (t) => {
      const all = await walk(t, runs, {}, 10, 20);
      if (!all) return;
      const agentOf = (r: Record<string, any>) => r.agent?.agentId;
      const ids = (values: unknown[], max: number) =>
        [...new Set(values.filter((v): v is string => typeof v === "string"))].slice(0, max);
      // The fixtures' batch runs and agents first, then those seen in the list (a foreign target).
      const batches = ids([t.fixtures.batchId, t.fixtures.otherBatchId, ...all.items.map((r) => r.batchId)], 3);
      const agents = ids([t.fixtures.agentId, t.fixtures.otherAgentId, ...all.items.map(agentOf)], 2);
      if (all.items.length === 0) return t.skip("the target lists no test run");
      const check = { unfiltered: all.items.map(runs.idOf), stored: await t.fixtures.control?.listRecords("testRuns") };
      await checkFilter(t, runs, {}, () => true, "test runs", check);
      for (const batchId of batches)
        await checkFilter(t, runs, { batchId }, (r) => r.batchId === batchId, `test runs of batch ${batchId}`, check);
      for (const agentId of agents)
        await checkFilter(t, runs, { agentId }, (r) => agentOf(r) === agentId, `test runs of agent ${agentId}`, check);
      for (const batchId of batches) {
        for (const agentId of agents) {
          await checkFilter(
            t,
            runs,
            { batchId, agentId },
            (r) => r.batchId === batchId && agentOf(r) === agentId,
            `test runs of batch ${batchId} and agent ${agentId}`,
            check,
          );
        }
      }
    },
  },
  {
    id: "listTestRuns.test-case-whole",
    operationId: "listTestRuns",
    level: "documented",
    readOnly: true,
    description:
      "A test run embeds its test case whole: every mockData and mockToolData entry (present in test run listings, 2.7), none lost or altered, in the test case's order (assumption); test cases with several of each (kit's mock only).",
    run: async (t) => {
      const control = t.fixtures.control;
      if (!control) return t.skip("needs the kit's mock: only the test cases the run created are known whole");
      const cases = new Map((await control.listRecords("testCases")).map((c) => [c.testCaseId, c]));
      const result = await walk(t, runs, {}, 10, 20);
      let several = 0;
      for (const page of result?.pages ?? [])
        page.data.forEach((run, i) => {
          const exchange = page.exchange;
          const stored = cases.get(run.testCase?.testCaseId);
          if (
            !t.expect(!!stored, {
              pointer: `/data/${i}/testCase/testCaseId`,
              expected: "a test case of the workspace",
              actual: run.testCase?.testCaseId,
              message: "the run embeds a test case of the workspace",
              exchange,
            }) ||
            !stored
          )
            return;
          for (const field of ["mockData", "mockToolData"]) {
            const [got, want] = [run.testCase[field], stored[field] ?? []];
            if (want.length > 1) several++;
            const pointer = `/data/${i}/testCase/${field}`;
            t.expect(sameMembers(got, want), {
              pointer,
              expected: want,
              actual: got,
              message: `test case ${stored.testCaseId}: every ${field} entry, unaltered`,
              exchange,
            });
            t.expect(differences(got, want).length === 0, {
              pointer,
              expected: want,
              actual: got,
              message: `test case ${stored.testCaseId}: ${field} in the test case's order (assumption)`,
              exchange,
              assumed: true,
            });
          }
        });
      t.expect(several > 0, {
        pointer: "/data",
        expected: "test cases with several mockData and mockToolData entries",
        actual: "none listed",
        message: "the fixtures' test cases with several entries are listed",
      });
    },
  },
  {
    id: "listTestRuns.run-invariants",
    operationId: "listTestRuns",
    level: "documented",
    readOnly: true,
    description: "A test run completes after it is created; while running it has no result (assumption).",
    run: async (t) => {
      const result = await walk(t, runs, {}, 10, 10);
      for (const page of result?.pages ?? [])
        page.data.forEach((r, i) => {
          const exchange = page.exchange;
          if (r.completedDate)
            t.expect(Date.parse(r.completedDate) >= Date.parse(r.createdDate), {
              pointer: `/data/${i}/completedDate`,
              expected: `>= ${r.createdDate}`,
              actual: r.completedDate,
              message: "completedDate is not before createdDate",
              exchange,
            });
          const running = r.completedDate === null;
          for (const field of ["isSuccessful", "remarks"]) {
            t.expect((r[field] === null) === running, {
              pointer: `/data/${i}/${field}`,
              expected: running ? "null while running" : "set once completed",
              actual: r[field],
              message: "a test run has a result exactly when it has completed (assumption)",
              exchange,
              assumed: true,
            });
          }
          if (running)
            t.expectEqual(
              r.conversation,
              [],
              `/data/${i}/conversation`,
              "a running test run has no conversation yet (assumption)",
              { exchange, assumed: true },
            );
        });
    },
  },
  {
    id: "createBatchRun.created",
    operationId: "createBatchRun",
    level: "documented",
    readOnly: false,
    description:
      "E6 answers 201 with batchId, workspaceId, the agent and createdDate; E7 returns the batch with its test cases.",
    run: async (t) => {
      const batch = await createBatch(t);
      if (!batch) return;
      t.expectEqual(batch.agent?.agentId, t.fixtures.agentId, "/agent/agentId", "the batch belongs to the agent sent");
      if (t.fixtures.batchId)
        t.expect(batch.batchId !== t.fixtures.batchId, {
          pointer: "/batchId",
          expected: `a new id, not ${t.fixtures.batchId}`,
          actual: batch.batchId,
          message: "a new batch run has its own batchId",
        });
      const ex = await t.call("getBatchRun", {
        method: "GET",
        path: batchPath(batch.batchId),
        query: { agentId: t.fixtures.agentId },
      });
      if (!t.expectStatus(ex, 200)) return;
      const got = obj(ex);
      for (const field of ["batchId", "workspaceId", "agent", "createdDate"])
        t.expectEqual(got[field], batch[field], `/${field}`, `E7 and E6 agree on ${field}`);
      const ids = (got.testCases ?? []).map((c: Record<string, any>) => c.testCaseId);
      t.expectEqual(
        [...ids].sort(),
        [...t.fixtures.testCaseIds].sort(),
        "/testCases",
        "E7 lists the test cases E6 was given",
      );
      t.expectEqual(
        ids,
        t.fixtures.testCaseIds,
        "/testCases",
        "E7 lists the test cases in the order E6 was given (assumption)",
        { assumed: true },
      );
      counters(t, got);
    },
  },
  {
    id: "createBatchRun.progress",
    operationId: "createBatchRun",
    level: "assumed",
    readOnly: false,
    description: "Each test case runs `attempt` times; once finished the counters and E8 agree (assumption).",
    run: async (t) => {
      const batch = await createBatch(t);
      if (!batch) return;
      if (!(await t.fixtures.advanceClock(3600))) return t.skip("cannot move the target's clock");
      const ex = await t.call("getBatchRun", { method: "GET", path: batchPath(batch.batchId) });
      if (!t.expectStatus(ex, 200)) return;
      const got = obj(ex);
      const expected = (got.testCases ?? []).reduce((n: number, c: Record<string, any>) => n + (c.attempt ?? 1), 0);
      t.expectEqual(got.totalAttempts, expected, "/totalAttempts", "every attempt of every test case ran");
      counters(t, got);
      const listed = await walk(t, runs, { batchId: batch.batchId }, 10);
      if (listed)
        t.expectEqual(listed.total, expected, "/totalCount", "E8 lists one test run per attempt of the batch");
    },
  },
  {
    id: "createBatchRun.invalid-body",
    operationId: "createBatchRun",
    level: "assumed",
    readOnly: false,
    description: "agentId and testCases are required (assumption): without them 400 naming the field.",
    run: async (t) => {
      for (const [body, field] of [
        [{ testCases: ["x"] }, "agentId"],
        [{ agentId: t.fixtures.agentId ?? "x" }, "testCases"],
        [{ agentId: "x", testCases: [] }, "testCases"],
      ] as const) {
        const ex = await t.call("createBatchRun", { method: "POST", path: "/v1/batch-runs", body });
        if (t.expectStatus(ex, 400))
          t.expect(typeof obj(ex).validationErrors?.[field] === "string", {
            pointer: `/validationErrors/${field}`,
            expected: "a message",
            actual: obj(ex).validationErrors,
            message: `validationErrors names ${field}`,
          });
      }
    },
  },
  {
    id: "createBatchRun.unknown-references",
    operationId: "createBatchRun",
    level: "assumed",
    readOnly: false,
    description: "An unknown agent or test case answers 404 (assumption).",
    run: async (t) => {
      t.expectStatus(
        await t.call("createBatchRun", {
          method: "POST",
          path: "/v1/batch-runs",
          body: {
            agentId: randomUUID(),
            testCases: t.fixtures.testCaseIds.length ? t.fixtures.testCaseIds : [randomUUID()],
          },
        }),
        404,
        "unknown agent",
      );
      if (t.fixtures.agentId)
        t.expectStatus(
          await t.call("createBatchRun", {
            method: "POST",
            path: "/v1/batch-runs",
            body: { agentId: t.fixtures.agentId, testCases: [randomUUID()] },
          }),
          404,
          "unknown test case",
        );
    },
  },
]);
export { runs as testRunsList };

/**
 * Batch runs and test runs (2.7). One test run is one attempt of one test case of the batch. The
 * batch counters count finished test runs only, so at every moment
 *   successfulAttempts + failedAttempts = totalAttempts = completed test runs of the batch.
 * A running test run has completedDate, isSuccessful and remarks null and an empty conversation;
 * a completed one has all of them.
 */
import type { BatchRun, StoredTestRun, TestCase } from "../store/records.js";
import type { Workspace } from "../store/workspace.js";
import { agentReference, clampPast, iso, parseTime, MINUTE, SECOND, type BuildContext } from "./context.js";
import { buildTestCase } from "./test-cases.js";

type ConversationMessage = StoredTestRun["conversation"][number];

export interface AttemptCounters {
  successfulAttempts: number;
  failedAttempts: number;
  totalAttempts: number;
}

/** The counters of a batch, from the stored test runs (O(test runs); the collections are small). */
export function countAttempts(workspace: Workspace, batchId: string): AttemptCounters {
  let successfulAttempts = 0;
  let failedAttempts = 0;
  for (const run of workspace.collections.testRuns.all()) {
    if (run.batchId !== batchId || run.completedDate === null || run.isSuccessful === null) continue;
    if (run.isSuccessful) successfulAttempts++;
    else failedAttempts++;
  }
  return { successfulAttempts, failedAttempts, totalAttempts: successfulAttempts + failedAttempts };
}

/** Brings a stored batch's counters in step with its stored test runs (call after a test run changes). */
export function recountBatch(workspace: Workspace, batchId: string): void {
  if (!workspace.collections.batchRuns.has(batchId)) return;
  workspace.collections.batchRuns.update(batchId, (batch) => ({ ...batch, ...countAttempts(workspace, batchId) }));
}

export function buildBatchRun(ctx: BuildContext, partial: Partial<BatchRun> = {}): BatchRun {
  const { faker, workspace } = ctx;
  const agent = agentReference(ctx, partial.agent ?? partial.testCases?.[0]?.agent);
  const batchId = partial.batchId ?? faker.string.uuid();
  const stored = workspace.collections.testCases;
  const ofAgent = stored.all().filter((t) => t.agent.agentId === agent.agentId);
  // Given test cases that the workspace holds are its records; a batch runs at least one (a fill
  // creates one for the agent when it has none).
  const testCases: TestCase[] =
    partial.testCases?.map((t) => stored.get(t.testCaseId) ?? t) ??
    (ofAgent.length > 0
      ? faker.helpers.arrayElements(ofAgent, { min: 1, max: Math.min(3, ofAgent.length) })
      : ctx.createMissing
        ? [ctx.createMissing("testCases", { agent })]
        : []);
  return {
    batchId,
    workspaceId: workspace.workspaceId,
    agent,
    createdDate: iso(parseTime(partial.createdDate) ?? ctx.now.getTime()),
    testCases,
    // Counters always follow the stored test runs; given counters cannot be kept coherent otherwise.
    ...countAttempts(workspace, batchId),
  };
}

/**
 * One attempt of a test case in a batch: the given batch (or one of the workspace, see batchFor), one
 * of its test cases, created after the batch. Completed unless completedDate, isSuccessful or remarks is given as null.
 * Storing it changes the batch's counters: call recountBatch afterwards.
 */
export function buildTestRun(ctx: BuildContext, partial: Partial<StoredTestRun> = {}): StoredTestRun {
  const { faker, workspace } = ctx;
  const batch = partial.batchId ? workspace.collections.batchRuns.get(partial.batchId) : batchFor(ctx, partial);
  const storedCase = partial.testCase?.testCaseId
    ? workspace.collections.testCases.get(partial.testCase.testCaseId)
    : undefined;
  const testCase =
    storedCase ??
    partial.testCase ??
    (batch && batch.testCases.length > 0
      ? faker.helpers.arrayElement(batch.testCases)
      : ctx.createMissing
        ? ctx.createMissing("testCases", { agent: batch?.agent ?? partial.agent })
        : buildTestCase(ctx, { agent: batch?.agent ?? partial.agent }));
  const agent = agentReference(ctx, partial.agent ?? batch?.agent ?? testCase.agent);
  const batchCreated = parseTime(batch?.createdDate) ?? -Infinity;
  const running = partial.completedDate === null || partial.isSuccessful === null || partial.remarks === null;
  // A run built now started now (running) or a few minutes ago (completed now at the latest).
  const runMs = faker.number.int({ min: 20 * SECOND, max: 4 * MINUTE });
  const createdMs = Math.max(parseTime(partial.createdDate) ?? ctx.now.getTime() - (running ? 0 : runMs), batchCreated);
  const base = {
    batchId: partial.batchId ?? batch?.batchId ?? faker.string.uuid(),
    workspaceId: workspace.workspaceId,
    agent,
    testCase,
    jobId: partial.jobId ?? faker.string.uuid(),
    chatId: partial.chatId ?? faker.string.uuid(),
    createdDate: iso(createdMs),
  };
  if (running) return { ...base, completedDate: null, isSuccessful: null, remarks: null, conversation: [] };
  const isSuccessful = partial.isSuccessful ?? faker.datatype.boolean(0.7);
  const completedMs = Math.max(
    createdMs,
    parseTime(partial.completedDate) ?? clampPast(ctx, createdMs + runMs, createdMs),
  );
  return {
    ...base,
    completedDate: iso(completedMs),
    isSuccessful,
    remarks: partial.remarks ?? remarksFor(testCase, isSuccessful),
    conversation:
      partial.conversation && partial.conversation.length > 0
        ? partial.conversation
        : simulatedConversation(ctx, testCase, agent.name),
  };
}

/**
 * The batch of a test run given no batchId: the most recent one (of the given agent, when a fill names
 * one), else (a fill) a new batch of that agent, dated a little before the run it is to hold.
 */
function batchFor(ctx: BuildContext, partial: Partial<StoredTestRun>): BatchRun | undefined {
  const all = ctx.workspace.collections.batchRuns.all();
  if (!ctx.createMissing) return all.at(-1);
  const agentId = partial.agent?.agentId;
  const latest = agentId ? all.findLast((b) => b.agent.agentId === agentId) : all.at(-1);
  if (latest) return latest;
  const runMs = parseTime(partial.createdDate) ?? ctx.now.getTime();
  const createdDate = iso(runMs - ctx.faker.number.int({ min: 5 * MINUTE, max: 30 * MINUTE }));
  return ctx.createMissing("batchRuns", { ...(partial.agent ? { agent: partial.agent } : {}), createdDate });
}

export function remarksFor(testCase: TestCase, success: boolean): string {
  const criteria = testCase.successCriteria ?? "the success criteria";
  return success ? `Passed: ${criteria}` : `Failed: the conversation did not meet the criteria. Expected: ${criteria}`;
}

/** A short user/assistant exchange that starts from the test case's persona. */
export function simulatedConversation(ctx: BuildContext, testCase: TestCase, agentName: string): ConversationMessage[] {
  const { faker } = ctx;
  const customer = testCase.mockData?.find((m) => m.variableName === "customerName")?.value ?? faker.person.fullName();
  const turns: ConversationMessage[] = [
    { role: "assistant", content: `Hello, this is ${agentName}. How can I help you today?` },
    { role: "user", content: `Hi, my name is ${customer}. ${testCase.label}.` },
    { role: "assistant", content: "Thanks, let me look into that for you." },
    { role: "user", content: "Okay, I'll wait." },
  ];
  if (faker.datatype.boolean())
    turns.push(
      { role: "assistant", content: "Done. Is there anything else I can help you with?" },
      { role: "user", content: "No, that's all. Thank you." },
    );
  return turns;
}

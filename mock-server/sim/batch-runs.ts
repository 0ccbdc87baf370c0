/**
 * Batch runs (E6): each test case runs `attempt` times; every attempt is a test run that completes on
 * the clock, successful or failed, with remarks and a simulated conversation. The batch's counters
 * are updated with each completion, so successful + failed = total at all times (x-assumption).
 */
import type { Workspace } from "../store/workspace.js";
import type { Agent, BatchRun, StoredTestRun, TestCase } from "../store/records.js";
import { Random, hash32 } from "../core/random.js";
import type { Task } from "../store/tasks.js";
import { agentReplies, substitute, welcomeMessage } from "./chat-reply.js";

export function agentReference(agent: Agent) {
  return { name: agent.agentName, agentId: agent.agentId, status: "Live" };
}

export class BatchRuns {
  start(workspace: Workspace, agent: Agent, testCases: TestCase[]): BatchRun {
    const now = workspace.clock.iso();
    const batch: BatchRun = {
      batchId: workspace.random.uuid(),
      workspaceId: workspace.workspaceId,
      agent: agentReference(agent),
      createdDate: now,
      testCases,
      successfulAttempts: 0,
      failedAttempts: 0,
      totalAttempts: 0,
    };
    workspace.collections.batchRuns.create(batch);
    for (const testCase of testCases) {
      for (let attempt = 1; attempt <= (testCase.attempt ?? 1); attempt++) {
        const run: StoredTestRun = {
          batchId: batch.batchId,
          workspaceId: workspace.workspaceId,
          agent: batch.agent,
          testCase,
          jobId: workspace.random.uuid(),
          chatId: workspace.random.uuid(),
          createdDate: now,
          completedDate: null,
          isSuccessful: null,
          remarks: null,
          conversation: [],
        };
        workspace.collections.testRuns.create(run);
        this.track(workspace, run);
      }
    }
    return batch;
  }

  /** Schedules the completion of a running test run. */
  track(workspace: Workspace, run: StoredTestRun): void {
    if (run.completedDate !== null) return;
    const at = Math.max(workspace.clock.nowMs(), Date.parse(run.createdDate) + randomOf(run.jobId).int(15, 90) * 1000);
    workspace.tasks.schedule({ kind: "testRun", ref: run.jobId, at });
  }

  /** The scheduled completion of a test run, unless it completed meanwhile. */
  step(workspace: Workspace, task: Task): void {
    const current = workspace.collections.testRuns.get(task.ref);
    if (!current || current.completedDate !== null) return;
    const random = randomOf(current.jobId);
    random.int(15, 90);
    this.complete(workspace, current, random);
  }

  private complete(workspace: Workspace, run: StoredTestRun, random: Random): void {
    const agent = workspace.collections.agents.get(run.agent.agentId);
    const successful = random.chance(0.7);
    const variables = Object.fromEntries((run.testCase.mockData ?? []).map((m) => [m.variableName, m.value]));
    const goal = substitute(run.testCase.userPrompt ?? "I have a question.", variables);
    const conversation = [
      ...(agent ? [{ role: "assistant", content: welcomeMessage(agent, variables) }] : []),
      { role: "user", content: goal },
      ...(agent
        ? agentReplies(agent, goal, variables)
            .slice(-1)
            .map((content) => ({ role: "assistant", content }))
        : []),
    ];
    const criteria = run.testCase.successCriteria ?? "the success criteria";
    const remarks = successful
      ? `Met: ${criteria}`
      : `Not met: ${criteria} The agent did not complete the user's goal within the conversation.`;
    workspace.collections.testRuns.replace(run.jobId, {
      ...run,
      completedDate: workspace.clock.iso(),
      isSuccessful: successful,
      remarks,
      conversation,
    });
    const batch = workspace.collections.batchRuns.get(run.batchId);
    if (batch) {
      workspace.collections.batchRuns.replace(batch.batchId, {
        ...batch,
        successfulAttempts: batch.successfulAttempts + (successful ? 1 : 0),
        failedAttempts: batch.failedAttempts + (successful ? 0 : 1),
        totalAttempts: batch.totalAttempts + 1,
      });
    }
  }
}

/** A test run's own sequence: its wait is drawn first, then its outcome (whichever process completes it). */
function randomOf(jobId: string): Random {
  return new Random(hash32(jobId));
}

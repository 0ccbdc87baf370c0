/** E6-E8: batch runs over test cases of one agent, and their test runs. */
import type { HandlerTable } from "./context.js";
import { ApiError } from "../core/errors.js";
import { pageOf } from "../core/pagination.js";

export const simulationHandlers: HandlerTable<"createBatchRun" | "getBatchRun" | "listTestRuns"> = {
  createBatchRun: ({ workspace, body, services }) => {
    const agent = workspace.collections.agents.require(body.agentId, "Agent");
    const testCases = body.testCases.map((id) => {
      const testCase = workspace.collections.testCases.require(id, "Test case");
      if (testCase.agent.agentId !== agent.agentId) {
        throw new ApiError(404, `Test case not found for agent ${agent.agentId}: ${id}`);
      }
      return testCase;
    });
    const batch = services.simulation.startBatch(workspace, agent, testCases);
    const { batchId, workspaceId, agent: reference, createdDate } = batch;
    return { status: 201, body: { batchId, workspaceId, agent: reference, createdDate } };
  },

  getBatchRun: ({ workspace, params, query }) => {
    const batch = workspace.collections.batchRuns.require(params.batchId, "Batch run");
    if (query.agentId !== undefined && query.agentId !== batch.agent.agentId) {
      throw new ApiError(404, `Batch run not found for agent ${query.agentId}: ${params.batchId}`);
    }
    return { status: 200, body: batch };
  },

  listTestRuns: ({ workspace, query }) => ({
    status: 200,
    body: pageOf(workspace.collections.testRuns, {
      where: { batchId: query.batchId, agentId: query.agentId },
      order: "newest",
      page: query.page!,
      size: query.size!,
    }),
  }),
};

/** E16: a chat completion from an agent of the workspace. */
import type { HandlerTable } from "./context.js";

export const chatHandlers: HandlerTable<"createChat"> = {
  createChat: ({ workspace, body, services }) => {
    const agent = workspace.collections.agents.require(body.agentId, "Agent");
    const {
      agentId: _agentId,
      conversation: _conversation,
      variables: _variables,
      transcript: _transcript,
      ...chat
    } = services.simulation.chat(workspace, agent, body.conversation, body.variables ?? {});
    return { status: 200, body: chat };
  },
};

/** E16 create chat: agentId required, the 2.14 result shape. */
import { randomUUID } from "node:crypto";
import { defineRules, obj, type RuleContext } from "../lib/rule.js";

async function chat(t: RuleContext, body: Record<string, unknown>) {
  return t.call("createChat", { method: "POST", path: "/v1/chat", body });
}

export const chatRules = defineRules("chat", [
  {
    id: "createChat.completion",
    operationId: "createChat",
    level: "documented",
    readOnly: false,
    description: "E16 with an agent answers 200 with id, timestamps, status and response messages (2.14).",
    run: async (t) => {
      if (!t.fixtures.agentId) return t.skip("no agent known");
      const ex = await chat(t, {
        agentId: t.fixtures.agentId,
        conversation: "Can I move my appointment to Friday?",
        variables: { customerName: "Dana" },
      });
      if (!t.expectStatus(ex, 200)) return;
      const body = obj(ex);
      t.expect(Array.isArray(body.response), {
        pointer: "/response",
        expected: "an array",
        actual: body.response,
        message: "response is an array of messages",
      });
      t.expectEqual(body.status, "completed", "/status", "a chat the agent answered is completed (assumption)", {
        assumed: true,
      });
      t.expectEqual(body.error ?? null, null, "/error", "no error when completed (assumption)", { assumed: true });
      // A response that is not an array has failed above: its messages are not read.
      const messages = (Array.isArray(body.response) ? body.response : []) as Record<string, any>[];
      t.expect(messages.length > 0 && messages.every((m) => m.role === "assistant" && m.type === "text"), {
        pointer: "/response",
        expected: "assistant text messages",
        actual: messages,
        message: "the agent replies with text (assumption)",
        assumed: true,
      });
      const again = await chat(t, { agentId: t.fixtures.agentId, conversation: "And on Saturday?" });
      if (t.expectStatus(again, 200))
        t.expect(obj(again).id !== body.id, {
          pointer: "/id",
          expected: `another id than ${body.id}`,
          actual: obj(again).id,
          message: "an unrelated chat has its own id",
        });
    },
  },
  {
    id: "createChat.conversation",
    operationId: "createChat",
    level: "assumed",
    readOnly: false,
    description:
      "A request that resends the history of an open conversation continues it (same id, createdAt kept); other variables start another (assumption).",
    run: async (t) => {
      if (!t.fixtures.agentId) return t.skip("no agent known");
      const variables = { customerName: `Dana ${t.fixtures.runId}` };
      const question = `Do you open on Sundays? (${t.fixtures.runId})`;
      const first = await chat(t, { agentId: t.fixtures.agentId, conversation: question, variables });
      if (!t.expectStatus(first, 200)) return;
      const replies = (Array.isArray(obj(first).response) ? (obj(first).response as Record<string, any>[]) : [])
        .map((m) => (Array.isArray(m?.content) ? m.content : []).join(" "))
        .join(" ");
      const history = `User: ${question}\nAgent: ${replies}\nUser: And on public holidays?`;
      const next = await chat(t, { agentId: t.fixtures.agentId, conversation: history, variables });
      if (t.expectStatus(next, 200)) {
        t.expectEqual(obj(next).id, obj(first).id, "/id", "the history of an open conversation continues it");
        t.expectEqual(
          obj(next).createdAt,
          obj(first).createdAt,
          "/createdAt",
          "createdAt stays the conversation's start",
        );
      }
      const other = await chat(t, {
        agentId: t.fixtures.agentId,
        conversation: history,
        variables: { customerName: `Eve ${t.fixtures.runId}` },
      });
      if (t.expectStatus(other, 200))
        t.expect(obj(other).id !== obj(first).id, {
          pointer: "/id",
          expected: `another id than ${obj(first).id}`,
          actual: obj(other).id,
          message: "other variables start another conversation",
        });
    },
  },
  {
    id: "createChat.missing-agent",
    operationId: "createChat",
    level: "documented",
    readOnly: false,
    description: "agentId is required: without it 400.",
    run: async (t) => {
      const ex = await chat(t, { conversation: "Hello" });
      if (t.expectStatus(ex, 400))
        t.expect(typeof obj(ex).validationErrors?.agentId === "string", {
          pointer: "/validationErrors/agentId",
          expected: "a message",
          actual: obj(ex).validationErrors,
          message: "validationErrors names agentId (assumption)",
          assumed: true,
        });
    },
  },
  {
    id: "createChat.invalid-body",
    operationId: "createChat",
    level: "assumed",
    readOnly: false,
    description:
      "An unknown agent answers 404; an unknown field or a non-string conversation answers 400 (assumptions).",
    run: async (t) => {
      t.expectStatus(await chat(t, { agentId: randomUUID(), conversation: "Hello" }), 404, "an unknown agent");
      const agentId = t.fixtures.agentId ?? randomUUID();
      t.expectStatus(await chat(t, { agentId, conversation: "Hello", mood: "happy" }), 400, "an unknown field");
      t.expectStatus(await chat(t, { agentId, conversation: 42 }), 400, "a conversation that is not a string");
      t.expectStatus(
        await chat(t, { agentId, variables: { nested: { a: 1 } } }),
        400,
        "a variable that is not a string, number or boolean",
      );
    },
  },
]);

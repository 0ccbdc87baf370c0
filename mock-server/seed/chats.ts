/**
 * Chats: an E16 chat completion as stored, with what it was asked (agentId, conversation, variables).
 * A completed chat has the agent's reply and error null; a failed one has no reply and says why.
 */
import type { StoredChat } from "../store/records.js";
import { agentReference, iso, parseTime, SECOND, type BuildContext } from "./context.js";

const QUESTIONS = [
  { ask: "Hi, what time do you open tomorrow?", reply: "Good morning! Tomorrow we're open from 9 am to 5 pm." },
  { ask: "Where is my order?", reply: "I can help with that. Could you give me your order number?" },
  {
    ask: "Can I move my appointment to Friday?",
    reply: "Of course. I have 10:00 and 14:30 free on Friday, which one suits you?",
  },
  { ask: "How much do I still owe?", reply: "Your outstanding balance is $42.50, due on the 15th." },
  {
    ask: "I'd like to cancel my subscription.",
    reply: "I'm sorry to hear that. Can I ask what made you decide to cancel?",
  },
];

export function buildChat(ctx: BuildContext, partial: Partial<StoredChat> = {}): StoredChat {
  const { faker } = ctx;
  const qa = faker.helpers.arrayElement(QUESTIONS);
  // The reply takes a second or few: a chat built now was asked that long ago and answered now.
  const replyMs = faker.number.int({ min: 400, max: 4 * SECOND });
  const createdMs = parseTime(partial.createdAt) ?? ctx.now.getTime() - replyMs;
  const updatedMs = Math.max(
    createdMs,
    parseTime(partial.updatedAt) ?? Math.min(createdMs + replyMs, ctx.now.getTime()),
  );
  const status = partial.status ?? (faker.datatype.boolean(0.9) ? "completed" : "failed");
  const completed = status === "completed";
  return {
    id: partial.id ?? faker.string.uuid(),
    createdAt: iso(createdMs),
    updatedAt: iso(updatedMs),
    status,
    error: completed ? null : (partial.error ?? "The agent could not produce a reply: the language model timed out."),
    response: completed
      ? (partial.response ?? [{ id: faker.string.uuid(), role: "assistant", type: "text", content: [qa.reply] }])
      : [],
    agentId: partial.agentId ?? agentReference(ctx).agentId,
    conversation: partial.conversation ?? qa.ask,
    variables: partial.variables ?? (faker.datatype.boolean(0.6) ? { customerName: faker.person.fullName() } : {}),
  };
}

/**
 * The agent's side of a text chat, simulated deterministically from the agent itself: the welcome
 * message per welcomeMessageType, an answer that follows the instructions, and the request's
 * variables substituted wherever `{{name}}` appears.
 */
import type { Agent } from "../store/records.js";

export type Variables = Record<string, string | number | boolean>;

export function substitute(text: string, variables: Variables): string {
  return text.replace(/\{\{\s*([\w.-]+)\s*\}\}/g, (whole, name: string) =>
    Object.hasOwn(variables, name) ? String(variables[name]) : whole,
  );
}

function firstSentence(text: string): string {
  const match = /^[^.!?\n]*[.!?]?/.exec(text.trim());
  return (match?.[0] ?? "").trim();
}

/** Turns the second-person system prompt into the agent's first-person stance. */
function stance(instructions: string): string {
  const sentence = firstSentence(instructions);
  if (!sentence) return "";
  return sentence
    .replace(/^You are\b/i, "I am")
    .replace(/^You\b/i, "I")
    .replace(/\byour\b/gi, "my");
}

export function welcomeMessage(agent: Agent, variables: Variables): string {
  const base = substitute(agent.welcomeMessage, variables);
  if (agent.welcomeMessageType === "static") return base;
  // `prompt`: the welcome is generated from the prompt; the simulation greets and follows its gist.
  const name = typeof variables.customerName === "string" ? ` ${variables.customerName}` : "";
  return `Hello${name}, this is ${agent.agentName}. ${firstSentence(base)}`.trim();
}

/** The customer's latest message: the last line of the history, without a `User:` or `Customer:` label. */
export function lastCustomerLine(conversation: string): string {
  const lines = conversation
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  const last = lines.at(-1) ?? "";
  return last.replace(/^(user|customer)\s*:\s*/i, "");
}

/** The agent's replies to one turn; `greeted` (a later turn of a conversation) leaves out the welcome. */
export function agentReplies(
  agent: Agent,
  conversation: string | undefined,
  variables: Variables,
  { greeted = false } = {},
): string[] {
  const replies: string[] = [];
  const asked = conversation ? lastCustomerLine(conversation) : "";
  if (!greeted && (!asked || agent.agentSettings.aiStartsConversation !== false))
    replies.push(welcomeMessage(agent, variables));
  if (asked) {
    const quoted = asked.length > 200 ? `${asked.slice(0, 197)}...` : asked;
    const answer = [
      `You said: "${quoted}".`,
      substitute(stance(agent.instructions), variables),
      "Let me help you with that.",
    ]
      .filter(Boolean)
      .join(" ");
    replies.push(answer);
  }
  return replies;
}

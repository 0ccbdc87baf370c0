/**
 * What every builder needs: a seeded Faker (never the global one, so two workspaces never share a
 * random sequence), the workspace (to reference records that exist), and "now" (so nothing is dated
 * after the clock). Also the small time and pick helpers the builders share.
 */
import type { Faker } from "@faker-js/faker";
import type { Workspace } from "../store/workspace.js";
import type { Agent, AgentReference, CollectionName, RecordTypes } from "../store/records.js";

export interface BuildContext {
  faker: Faker;
  workspace: Workspace;
  now: Date;
  /**
   * Control-plane fills only: builds a record of `name` with the same builders, stores it and answers
   * it, for a reference the workspace has no record to point at. Absent while seeding, which creates
   * parents before children and must stay byte-identical.
   */
  createMissing?: <K extends CollectionName>(name: K, partial?: Partial<RecordTypes[K]>) => RecordTypes[K];
}

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** A Faker of its own, seeded (core/sampling/faker.ts: the generic layer's sampler draws from the same kind). */
export { newFaker } from "../core/sampling/faker.js";

/** ISO 8601 UTC with milliseconds: the one timestamp format the mock writes. */
export function iso(at: number | Date): string {
  return new Date(at).toISOString();
}

/** Milliseconds of a timestamp given in a partial, or undefined when absent, null or unparsable. */
export function parseTime(value: unknown): number | undefined {
  if (typeof value !== "string") return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/** A random float in [0, 1) drawn from the context's Faker (for helpers that take a plain `rand`). */
export function randOf(ctx: BuildContext): () => number {
  return () => ctx.faker.number.float();
}

/** `count` instants in [from, to], ascending: seeded collections are created oldest first. */
export function ascendingTimes(ctx: BuildContext, count: number, from: number, to: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < count; i++) out.push(ctx.faker.number.int({ min: Math.round(from), max: Math.round(to) }));
  return out.sort((a, b) => a - b);
}

/** Lowercase letters and digits, for slugs and ids with a documented shape (kb_..., node_...). */
export function lowerAlnum(ctx: BuildContext, length: number): string {
  return ctx.faker.string.alphanumeric({ length, casing: "lower" });
}

export function lowerHex(ctx: BuildContext, length: number): string {
  return ctx.faker.string.hexadecimal({ length, casing: "lower", prefix: "" });
}

export function slugify(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40);
}

/** The workspace's agents (a small collection; a copy is cheap). */
export function agentsOf(ctx: BuildContext): Agent[] {
  return ctx.workspace.collections.agents.all();
}

export function referenceTo(agent: Agent): AgentReference {
  return { name: agent.agentName, agentId: agent.agentId, status: "Live" };
}

/**
 * An agent reference that points at a real agent whenever it can: the given agentId's agent (its
 * name wins, so references never disagree with the agent; an unknown id is kept as given), else a
 * random agent of the workspace, else (a fill) a new agent stored for it, else a made-up agent.
 */
export function agentReference(ctx: BuildContext, given?: Partial<AgentReference> | null): AgentReference {
  const status = given?.status ?? "Live";
  if (given?.agentId) {
    const agent = ctx.workspace.collections.agents.get(given.agentId);
    return { name: agent?.agentName ?? given.name ?? fakeAgentName(ctx), agentId: given.agentId, status };
  }
  const agents = agentsOf(ctx);
  if (agents.length > 0) {
    const agent = ctx.faker.helpers.arrayElement(agents);
    return { name: agent.agentName, agentId: agent.agentId, status };
  }
  if (ctx.createMissing) {
    const agent = ctx.createMissing("agents", given?.name ? { agentName: given.name } : {});
    return { name: agent.agentName, agentId: agent.agentId, status };
  }
  return { name: given?.name ?? fakeAgentName(ctx), agentId: ctx.faker.string.uuid(), status };
}

export function fakeAgentName(ctx: BuildContext): string {
  return `${ctx.faker.person.firstName()} - ${ctx.faker.helpers.arrayElement(["Support", "Sales", "Scheduling", "Billing"])}`;
}

/** Keeps `at` inside [lower, now]; a generated instant never lies in the future. */
export function clampPast(ctx: BuildContext, at: number, lower = -Infinity): number {
  return Math.max(lower, Math.min(at, ctx.now.getTime()));
}

/**
 * Seed data and record builders of the mock.
 *  - seedWorkspace: the deterministic world a workspace starts with (and returns to on reset), or its
 *    scenario's (every-variant.ts); holdScenario keeps a scenario's variants from moving on.
 *  - buildRecord: fills a partial record for `POST /__mock/workspaces/{id}/{collection}`; the caller
 *    stores the result. Fills are deterministic too: the Faker is seeded from workspace.random.
 */
import type { Scenario, Workspace } from "../store/workspace.js";
import type { Collection } from "../store/collection.js";
import type { CollectionName, RecordTypes } from "../store/records.js";
import { newFaker, type BuildContext } from "./context.js";
import { buildAgent } from "./agents.js";
import { buildCall } from "./calls.js";
import { buildPhoneNumber } from "./phone-numbers.js";
import { buildIntegration } from "./integrations.js";
import { buildKnowledgeBase } from "./knowledge-bases.js";
import { buildWebhook } from "./webhooks.js";
import { buildQaIssue, buildQaRule } from "./qa.js";
import { buildTestCase } from "./test-cases.js";
import { buildBatchRun, buildTestRun } from "./batch-runs.js";
import { buildMockToolData } from "./mock-tool-data.js";
import { buildChat } from "./chats.js";
import { buildApiKey } from "./api-keys.js";
import { seedDocumented } from "./documented.js";
import { seedWorkspace as seedWorld } from "./world.js";
import { holdEveryVariant, seedEveryVariant } from "./every-variant.js";

export type { BuildContext } from "./context.js";
export { settleCall, terminationReasonsFor, canTransition, isFinal, NEXT_STATUSES } from "./call-lifecycle.js";
export { countAttempts, recountBatch } from "./batch-runs.js";
export { webhooksOfAgent } from "./agents.js";
export { buildAgent, buildCall, buildPhoneNumber, buildIntegration, buildKnowledgeBase, buildWebhook };
export {
  buildQaRule,
  buildQaIssue,
  buildTestCase,
  buildBatchRun,
  buildTestRun,
  buildMockToolData,
  buildChat,
  buildApiKey,
};

/**
 * The world a workspace starts with (and returns to on reset): its scenario's when it has one, else
 * the generated one (world.ts) and, in the default workspace, the records the spec's examples show
 * (documented.ts), oldest of all.
 */
export function seedWorkspace(workspace: Workspace, now: Date): void {
  if (workspace.scenario) return SCENARIO_SEEDERS[workspace.scenario](workspace, now);
  seedWorld(workspace, now);
  seedDocumented(workspace, now);
}

/** Each scenario's world, instead of the usual one (a scenario the spec adds without a seeder fails the build). */
const SCENARIO_SEEDERS: Record<Scenario, (workspace: Workspace, now: Date) => void> = {
  "every-variant": seedEveryVariant,
};

/**
 * After the simulation resumed a workspace (seeded, reset, restored): puts back what its scenario keeps
 * from moving on, where a record alone cannot say so (every-variant.ts). Nothing for other workspaces.
 */
export function holdScenario(workspace: Workspace): void {
  if (workspace.scenario === "every-variant") holdEveryVariant(workspace);
}

type Builders = { [K in CollectionName]: (ctx: BuildContext, partial: Partial<RecordTypes[K]>) => RecordTypes[K] };

const builders: Builders = {
  agents: buildAgent,
  calls: buildCall,
  phoneNumbers: buildPhoneNumber,
  integrations: buildIntegration,
  knowledgeBases: buildKnowledgeBase,
  webhooks: buildWebhook,
  qaRules: buildQaRule,
  qaIssues: buildQaIssue,
  testCases: buildTestCase,
  batchRuns: buildBatchRun,
  testRuns: buildTestRun,
  mockToolData: buildMockToolData,
  chats: buildChat,
  apiKeys: buildApiKey,
};

/**
 * A full record of collection `name`, coherent with `partial`. Side effect: an integration built with
 * authentication stores its credentials in workspace.credentials (unless the id is already taken).
 */
export function buildRecord<K extends CollectionName>(
  name: K,
  ctx: BuildContext,
  partial: Record<string, unknown>,
): RecordTypes[K] {
  const build = builders[name] as (ctx: BuildContext, partial: Partial<RecordTypes[K]>) => RecordTypes[K];
  return build(ctx, partial as Partial<RecordTypes[K]>);
}

/** A record a fill stored for a reference the workspace could not satisfy (see createBuildContext). */
export interface CreatedRecord {
  name: CollectionName;
  id: string;
}

/**
 * A context for control-plane fills: a fresh Faker seeded from the workspace's own Random sequence.
 * A reference with nothing to point at gets a record built with the same Faker and stored at once
 * (before the record that needs it); each one is listed in `created`, so a refused fill can drop them.
 */
export function createBuildContext(workspace: Workspace, now: Date, created: CreatedRecord[] = []): BuildContext {
  const ctx: BuildContext = { faker: newFaker(workspace.random.int(0, 2 ** 31), now), workspace, now };
  ctx.createMissing = <K extends CollectionName>(name: K, partial: Partial<RecordTypes[K]> = {}) => {
    const collection = workspace.collections[name] as unknown as Collection<RecordTypes[K]>;
    const record = collection.create(buildRecord(name, ctx, partial as Record<string, unknown>));
    created.push({ name, id: collection.idOf(record) });
    return record;
  };
  return ctx;
}

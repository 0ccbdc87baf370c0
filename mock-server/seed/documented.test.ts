/**
 * The documented records (seed/documented.ts): valid records of their schemas, in the default
 * workspace only, before the generated world in every collection and older than it, and without
 * changing a generated record.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { Clock } from "../core/clock.js";
import { DEFAULT_WORKSPACE_ID } from "../core/defaults.js";
import { createOpenApiAjv } from "../core/openapi-ajv.js";
import { SCHEMA_OF } from "../store/record-checks.js";
import { type CollectionName, collectionNames } from "../store/records.js";
import { Workspace } from "../store/workspace.js";
import { documentedIds, documentedRecords } from "./documented.js";
import { seedWorkspace } from "./index.js";
import { seedWorkspace as seedWorld } from "./world.js";

const NOW = new Date("2026-11-01T12:00:00.000Z");
const doc = JSON.parse(readFileSync(new URL("../../generated/openapi.json", import.meta.url), "utf8"));
const ajv = createOpenApiAjv();
ajv.addSchema(doc, "openapi.json");

function workspace(workspaceId: string, seed: (ws: Workspace, now: Date) => void = seedWorkspace): Workspace {
  const ws = new Workspace(
    { workspaceId, apiKey: "k", seed: 1, empty: false, readOnly: false },
    new Clock({ mode: "virtual", start: NOW }),
  );
  seed(ws, NOW);
  return ws;
}

const ids = documentedIds();
const documented = Object.entries(ids) as [CollectionName, string[]][];

describe("the documented records", () => {
  const records = documentedRecords(DEFAULT_WORKSPACE_ID, (t) => t);
  const byCollection: [CollectionName, unknown[]][] = [
    ["agents", [records.agent]],
    ["webhooks", [records.webhook]],
    ["phoneNumbers", records.phoneNumbers],
    ["integrations", [records.integration]],
    ["knowledgeBases", [records.knowledgeBase]],
    ["qaRules", [records.qaRule]],
    ["testCases", records.testCases],
    ["batchRuns", [records.batchRun]],
    ["testRuns", records.testRuns],
    ["calls", records.calls],
  ];

  it.each(byCollection)("%s validate against their schema", (collection, list) => {
    const validate = ajv.getSchema(`openapi.json#/components/schemas/${SCHEMA_OF[collection]}`)!;
    for (const record of list) expect(validate(record) ? null : ajv.errorsText(validate.errors)).toBeNull();
  });

  const ws = workspace(DEFAULT_WORKSPACE_ID);
  const world = workspace(DEFAULT_WORKSPACE_ID, seedWorld);

  it.each(documented)("%s: the default workspace holds them first, oldest first", (collection, list) => {
    const all = ws.collections[collection].all() as object[];
    const idOf = ws.collections[collection].idOf as (r: object) => string;
    expect(all.slice(0, list.length).map(idOf)).toEqual(list);
  });

  it("leaves every generated record as it was", () => {
    for (const name of collectionNames) {
      const mine = new Set(ids[name] ?? []);
      const idOf = ws.collections[name].idOf as (r: object) => string;
      const generated = (ws.collections[name].all() as object[]).filter((r) => !mine.has(idOf(r)));
      expect(JSON.stringify(generated), name).toBe(JSON.stringify(world.collections[name].all()));
    }
  });

  it("are older than every generated call and test run", () => {
    const newest = (times: string[]) => Math.max(...times.map(Date.parse));
    const oldest = (times: string[]) => Math.min(...times.map(Date.parse));
    const calls = ws.collections.calls.all();
    const runs = ws.collections.testRuns.all();
    const mine = (list: string[] | undefined) => new Set(list);
    const docCalls = calls.filter((c) => mine(ids.calls).has(c.callId)).map((c) => c.createdAt);
    const genCalls = calls.filter((c) => !mine(ids.calls).has(c.callId)).map((c) => c.createdAt);
    expect(newest(docCalls)).toBeLessThan(oldest(genCalls));
    const docRuns = runs.filter((r) => mine(ids.testRuns).has(r.jobId)).map((r) => r.createdDate);
    const genRuns = runs.filter((r) => !mine(ids.testRuns).has(r.jobId)).map((r) => r.createdDate);
    expect(newest(docRuns)).toBeLessThan(oldest(genRuns));
  });

  it("count their test runs into the batch run's attempts", () => {
    const batch = ws.collections.batchRuns.get(records.batchRun.batchId)!;
    expect([batch.successfulAttempts, batch.failedAttempts, batch.totalAttempts]).toEqual([1, 1, 2]);
  });

  it("are in the default workspace only", () => {
    const other = workspace("t");
    for (const [collection, list] of documented)
      for (const id of list) expect(other.collections[collection].has(id), `${collection} ${id}`).toBe(false);
    expect(other.credentials.has(records.integration.integrationId)).toBe(false);
    expect(ws.credentials.has(records.integration.integrationId)).toBe(true);
  });
});

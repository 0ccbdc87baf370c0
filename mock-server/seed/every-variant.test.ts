/**
 * The every-variant scenario against the coverage catalogue: the records each reading operation of the
 * reference serves (stored records are the answers' shapes) show every enum value and both sides of
 * every nullable field of that operation, and each list pages into a first, a middle, a last and an
 * empty page, under the filters that matter too. Then: the records are valid and coherent, the same seed gives the same
 * world, and the simulation leaves the live calls and running test runs alone for a year of the clock,
 * also after a restore.
 */
import { describe, expect, it } from "vitest";
import { Clock } from "../core/clock.js";
import { variantCatalogue } from "../core/coverage/catalogue.js";
import { observedVariants } from "../core/coverage/observe.js";
import { Random } from "../core/random.js";
import { generatedSpec } from "../core/spec.js";
import { createMock } from "../mock/mock.js";
import { recordErrors } from "../store/record-checks.js";
import { collectionNames, type CallStatus } from "../store/records.js";
import { restoreState, serializeState } from "../store/state.js";
import { Workspace } from "../store/workspace.js";
import { DAY } from "./context.js";
import { HOLD_MS } from "./every-variant.js";
import { isReferenceOperation } from "../../scripts/test/lib/reference-operations.js";
import { seedWorkspace } from "./index.js";

const NOW = new Date("2026-11-01T12:00:00.000Z");
const catalogue = variantCatalogue(generatedSpec().document);

function scenarioWorkspace(seed = 1, workspaceId = "t"): Workspace {
  const ws = new Workspace(
    { workspaceId, apiKey: "k", seed, empty: false, readOnly: false, scenario: "every-variant" },
    new Clock({ mode: "virtual", start: NOW }),
  );
  seedWorkspace(ws, NOW);
  return ws;
}

/** What each reading operation serves of the workspace under its default query (listWebhooks: active=true). */
const SERVED: Record<string, (w: Workspace) => object[]> = {
  listAgents: (w) => w.collections.agents.all(),
  getIntegration: (w) => w.collections.integrations.all(),
  getBatchRun: (w) => w.collections.batchRuns.all(),
  listTestRuns: (w) => w.collections.testRuns.all(),
  listCalls: (w) => w.collections.calls.all(),
  getCall: (w) => w.collections.calls.all(),
  getQaRule: (w) => w.collections.qaRules.all(),
  listPhoneNumbers: (w) => w.collections.phoneNumbers.all(),
  listWebhooks: (w) => w.collections.webhooks.all().filter((h) => h.active),
};

/** The catalogue's field and page variants of an operation. */
const wanted = (operationId: string) =>
  catalogue.variants
    .filter((v) => v.operationId === operationId && ["enum", "nullable", "page"].includes(v.kind))
    .map((v) => v.key);

/**
 * The variants an operation's answers show: a list read one record per page (size=1) from the first
 * page to one past the last, a get of each record by its id.
 */
function shown(operationId: string, records: object[]): Set<string> {
  const seen = new Set<string>();
  const answer = (body: unknown) =>
    observedVariants(catalogue, { operationId, status: 200, query: {}, body }).forEach((key) => seen.add(key));
  if (catalogue.operations.get(operationId)?.pages) {
    for (let page = 0; page <= records.length; page++)
      answer({ data: records.slice(page, page + 1), hasPrevious: page > 0, hasNext: page + 1 < records.length });
  } else for (const record of records) answer(record);
  return seen;
}

const missing = (operationId: string, records: object[]) => {
  const seen = shown(operationId, records);
  return wanted(operationId).filter((key) => !seen.has(key));
};

describe("the every-variant scenario", () => {
  const ws = scenarioWorkspace();

  it("serves every field and page variant of every reading operation", () => {
    const withVariants = new Set(
      catalogue.variants.filter((v) => ["enum", "nullable", "page"].includes(v.kind)).map((v) => v.operationId),
    );
    // A reading operation of the reference that gains a variant must be served here too. One a spec
    // author adds answers the generic layer's records, which the scenario does not seed.
    expect([...withVariants].filter((id) => isReferenceOperation(id) && !(id in SERVED))).toEqual([]);
    for (const [operationId, served] of Object.entries(SERVED)) {
      const records = served(ws);
      expect(records.length, operationId).toBeGreaterThanOrEqual(catalogue.operations.get(operationId)?.pages ? 3 : 1);
      expect(records.length, operationId).toBeLessThanOrEqual(100);
      expect(missing(operationId, records), operationId).toEqual([]);
    }
    expect(wanted("getCall")).toContain("getCall enum terminationReason=error_asr");
    expect(wanted("listCalls")).toContain("listCalls nullable campaign.phoneNumber.friendlyName=null");
  });

  it("shows the variants under the filters of its lists too", () => {
    const c = ws.collections;
    // listTestRuns?batchId=: one batch pages and shows every test run variant.
    const batches = c.batchRuns.all().map((b) => c.testRuns.all().filter((r) => r.batchId === b.batchId));
    expect(batches.some((runs) => runs.length >= 3 && missing("listTestRuns", runs).length === 0)).toBe(true);
    // listTestRuns?agentId= as well.
    const agentOfBatch = c.batchRuns.all()[0].agent.agentId;
    expect(
      missing(
        "listTestRuns",
        c.testRuns.all().filter((r) => r.agent.agentId === agentOfBatch),
      ),
    ).toEqual([]);
    // listWebhooks?agentId=&active=true|false: an agent pages through both.
    expect(
      c.agents.all().some((a) =>
        [true, false].every((active) => {
          const hooks = c.webhooks.all().filter((h) => h.agentId === a.agentId && h.active === active);
          return missing("listWebhooks", hooks).length === 0;
        }),
      ),
    ).toBe(true);
    // listCalls?status=: each status pages.
    for (const status of ["scheduled", "in_progress", "ended", "not_connected", "error"] as CallStatus[]) {
      const seen = shown(
        "listCalls",
        c.calls.all().filter((call) => call.status === status),
      );
      for (const page of ["empty", "first", "middle", "last"])
        expect(seen.has(`listCalls page ${page}`), `${status} ${page}`).toBe(true);
    }
  });

  it("holds only valid records, as normal seeding makes them", () => {
    for (const name of collectionNames)
      for (const record of ws.collections[name].all())
        expect(recordErrors(name, record), `${name} ${JSON.stringify(record).slice(0, 200)}`).toBeUndefined();
  });

  it("keeps references, times and counters coherent", () => {
    const c = ws.collections;
    const t = (iso: string | null) => (iso === null ? -Infinity : Date.parse(iso));
    for (const call of c.calls.all()) {
      expect(c.agents.get(call.agent.agentId)?.agentName).toBe(call.agent.name);
      expect(call.phoneNumber === null, call.callId).toBe(call.callType === "web" || call.callType === "chat");
      if (call.phoneNumber) expect(c.phoneNumbers.get(call.phoneNumber.sipPhoneNumber)).toEqual(call.phoneNumber);
      if (call.campaign) {
        expect(call.callType).toBe("outbound");
        expect(call.campaign.phoneNumber).toEqual(call.phoneNumber);
      }
      expect(t(call.updatedAt)).toBeLessThanOrEqual(NOW.getTime());
      expect(t(call.startTime)).toBeLessThanOrEqual(t(call.endTime) === -Infinity ? Infinity : t(call.endTime));
      // Held calls have a plan a year away; nothing else is scripted.
      expect(ws.callPlans.has(call.callId)).toBe(call.status === "scheduled" || call.status === "in_progress");
    }
    for (const call of c.calls.all().filter((k) => k.status === "scheduled"))
      expect(t(call.campaign!.scheduledDate!)).toBe(t(call.createdAt) + HOLD_MS);
    for (const batch of c.batchRuns.all()) {
      const done = c.testRuns.all().filter((r) => r.batchId === batch.batchId && r.completedDate !== null);
      expect(batch.totalAttempts).toBe(done.length);
      expect(batch.successfulAttempts).toBe(done.filter((r) => r.isSuccessful).length);
    }
    for (const hook of c.webhooks.all()) expect(c.agents.has(hook.agentId)).toBe(true);
    for (const agent of c.agents.all())
      expect(agent.agentSettings.webhooks?.map((w) => w.webhookId)).toEqual(
        c.webhooks
          .all()
          .filter((h) => h.agentId === agent.agentId)
          .map((h) => h.webhookId),
      );
    for (const i of c.integrations.all()) expect(ws.credentials.has(i.integrationId)).toBe(i.authentication !== null);
    // Lists are newest first by insertion: each collection is created oldest first.
    const stamps = c.calls.all().map((call) => t(call.createdAt));
    expect([...stamps].sort((a, b) => a - b)).toEqual(stamps);
  });

  it("is the same world for the same seed and workspace, another for another seed", () => {
    const json = (w: Workspace) =>
      JSON.stringify([
        collectionNames.map((n) => w.collections[n].all()),
        [...w.callPlans],
        [...w.credentials.entries()],
      ]);
    expect(json(scenarioWorkspace(1))).toBe(json(ws));
    expect(json(scenarioWorkspace(2))).not.toBe(json(ws));
  });
});

describe("the every-variant scenario over time", () => {
  const live = (w: Workspace) => ({
    scheduled: w.collections.calls.all().filter((c) => c.status === "scheduled").length,
    inProgress: w.collections.calls.all().filter((c) => c.status === "in_progress").length,
    running: w.collections.testRuns.all().filter((r) => r.completedDate === null).length,
  });
  const HELD = { scheduled: 3, inProgress: 3, running: 2 };

  it("keeps its live calls and running test runs through a month of the clock, not through a year", async () => {
    const mock = createMock({ clock: { mode: "virtual", start: NOW }, log: () => undefined });
    await mock.joined;
    const { workspaces, scheduler } = mock.services;
    const ws = workspaces.create({ scenario: "every-variant" }, new Random(1));
    expect(live(ws)).toEqual(HELD);
    await scheduler.advance(ws, 30 * DAY);
    expect(live(ws)).toEqual(HELD);
    await scheduler.advance(ws, HOLD_MS);
    expect(live(ws)).toEqual({ scheduled: 0, inProgress: 0, running: 0 });
    // A reset seeds the scenario again, held again.
    workspaces.resetOne(ws);
    expect(ws.scenario).toBe("every-variant");
    expect(live(ws)).toEqual(HELD);
    await mock.close();
  });

  it("keeps the scenario and its holds through a state file", async () => {
    const first = createMock({ clock: { mode: "virtual", start: NOW }, scenario: "every-variant", log: () => {} });
    await first.joined;
    const before = first.services.workspaces.get("default")!;
    const saved = JSON.parse(serializeState(first.services.workspaces, NOW.toISOString()));
    await first.close();
    expect(saved.workspaces[0].scenario).toBe("every-variant");

    // Started without --scenario: the state file's workspace is the scenario's, and stays held.
    const second = createMock({ clock: { mode: "virtual", start: NOW }, restore: saved, log: () => {} });
    await second.joined;
    const ws = second.services.workspaces.get("default")!;
    expect(ws.scenario).toBe("every-variant");
    expect(ws.collections.calls.all()).toEqual(before.collections.calls.all());
    await second.services.scheduler.advance(ws, 7 * DAY);
    expect(live(ws)).toEqual(HELD);
    await second.close();
  });

  it("refuses a state file naming an unknown scenario", () => {
    const mock = createMock({ clock: { mode: "virtual", start: NOW }, log: () => {} });
    const state = {
      version: 1,
      savedAt: NOW.toISOString(),
      workspaces: [
        {
          workspaceId: "w",
          apiKey: "k",
          seed: 1,
          empty: false,
          readOnly: false,
          scenario: "nope",
          collections: {},
          credentials: [],
          trunks: [],
        },
      ],
    };
    expect(() => restoreState(state as never, mock.services.workspaces)).toThrow(
      /unknown scenario; known: every-variant/,
    );
    void mock.close();
  });
});

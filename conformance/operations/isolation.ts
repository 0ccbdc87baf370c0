/**
 * Records belong to the workspace of the key that reaches them (2.x `workspaceId`, "Owning workspace";
 * 403 "Access denied for this resource"): a record reached through one key is never served, changed
 * or listed through another. 403 and 404 are both documented answers, never a 2xx; the kit answers
 * 404, as for an unknown id (assumption).
 *
 * Two keys: the run's own, and a second one. On the kit's mock the second is a seeded neighbour
 * workspace the control plane makes, whose records it lists; elsewhere `--second-api-key`, whose
 * records the rules discover through the list operations. Writes sent with the wrong key carry the
 * record's own values, so that a target that leaks changes nothing (what it would create is in the ledger).
 */
import { mockControl } from "../fixtures/control.js";
import type { Fixtures } from "../fixtures/types.js";
import type { Exchange, RequestSpec } from "../lib/http.js";
import { defineRules, obj, type RuleContext, type RuleSpec } from "../lib/rule.js";
import { agentsList } from "./agents.js";
import { callsList } from "./calls.js";
import { fetchPage, type ListConfig } from "./list-pages.js";
import { phoneNumbersList } from "./phone-numbers.js";
import { testRunsList } from "./simulations.js";
import { webhooksList } from "./webhooks.js";

const NO_SECOND_KEY =
  "needs a second key: pass --second-api-key KEY (a key of another workspace or account on the same target)";
const enc = encodeURIComponent;

interface Keys {
  /** The run's key and the second key. */
  mine: string;
  other: string;
  /** The second key's records on the kit's mock (its control plane), by collection. */
  otherRecords?(collection: string): Promise<Record<string, any>[]>;
}

/** One neighbour workspace per run on the kit's mock, made on first use. */
const neighbours = new WeakMap<Fixtures, Promise<{ workspaceId: string; apiKey: string }>>();

async function keys(t: RuleContext): Promise<Keys> {
  const control = t.fixtures.control;
  if (control) {
    if (!neighbours.has(t.fixtures)) neighbours.set(t.fixtures, control.createWorkspace({}));
    const neighbour = await neighbours.get(t.fixtures)!;
    return {
      mine: t.target.apiKey,
      other: neighbour.apiKey,
      otherRecords: (c) => mockControl(control.connection, neighbour.workspaceId).listRecords(c),
    };
  }
  const second = t.fixtures.secondKey;
  if (!second) return t.skip(NO_SECOND_KEY);
  return { mine: t.target.apiKey, other: second.apiKey };
}

/** The answer to a request with the wrong key: never served; 404 like an unknown id (assumption). */
function expectRefused(t: RuleContext, ex: Exchange, what: string): boolean {
  if (!t.expectStatus(ex, [403, 404], `${what} through another workspace's key is refused (403 or 404), never served`))
    return false;
  t.expect(ex.status === 404, {
    pointer: "#status",
    expected: "404",
    actual: ex.status,
    message: "another workspace's record answers as an unknown id (assumption)",
    assumed: true,
    exchange: ex,
  });
  return true;
}

interface ReadTarget {
  operationId: string;
  collection: string;
  path(id: string): string;
  idOf(r: Record<string, any>): string;
  /** Ids of the run's key the fixtures know. */
  mine(f: Fixtures): (string | undefined)[];
  /** On a foreign target: ids of the second key, found through a list with that key. */
  discover?: ListConfig;
}

/** The test run list, read for the batch ids it names. */
const BATCHES_OF_TEST_RUNS: ListConfig = { ...testRunsList, idOf: (r) => r.batchId };

const READS: ReadTarget[] = [
  {
    operationId: "getCall",
    collection: "calls",
    path: (id) => `/v1/calls/${enc(id)}`,
    idOf: (r) => r.callId,
    mine: (f) => [f.callId],
    discover: callsList,
  },
  {
    operationId: "getIntegration",
    collection: "integrations",
    path: (id) => `/v1/integrations/${enc(id)}`,
    idOf: (r) => r.integrationId,
    mine: (f) => [f.integrationId],
  },
  {
    operationId: "getQaRule",
    collection: "qaRules",
    path: (id) => `/v1/qa-rules/${enc(id)}`,
    idOf: (r) => r.qaRuleId,
    mine: (f) => [f.qaRuleId],
  },
  {
    operationId: "getBatchRun",
    collection: "batchRuns",
    path: (id) => `/v1/batch-runs/${enc(id)}`,
    idOf: (r) => r.batchId,
    mine: (f) => [f.batchId],
    discover: BATCHES_OF_TEST_RUNS,
  },
];

async function idsOfOther(t: RuleContext, k: Keys, target: ReadTarget): Promise<string[]> {
  if (k.otherRecords) return (await k.otherRecords(target.collection)).slice(0, 2).map(target.idOf);
  if (!target.discover) return [];
  const ex = await t.call(target.discover.operationId, {
    method: "GET",
    path: target.discover.path,
    query: { page: 0, size: 2 },
    key: k.other,
  });
  return ((obj(ex).data ?? []) as Record<string, any>[]).map(target.discover.idOf).filter(Boolean);
}

function readRule(target: ReadTarget): RuleSpec {
  return {
    id: `${target.operationId}.other-workspace`,
    operationId: target.operationId,
    level: "documented",
    readOnly: false,
    description:
      "A record of one key's workspace is not served through another key, either way: 403 or 404 (404 assumed), never 2xx.",
    run: async (t) => {
      const k = await keys(t);
      const mine = target.mine(t.fixtures).filter((id): id is string => !!id);
      const theirs = await idsOfOther(t, k, target);
      if (mine.length + theirs.length === 0) return t.skip(`no ${target.collection} record known of either key`);
      for (const id of mine)
        expectRefused(
          t,
          await t.call(target.operationId, { method: "GET", path: target.path(id), key: k.other }),
          `the run's ${target.collection} record ${id}, read`,
        );
      for (const id of theirs)
        expectRefused(
          t,
          await t.call(target.operationId, { method: "GET", path: target.path(id) }),
          `the second key's ${target.collection} record ${id}, read`,
        );
    },
  };
}

interface WriteTarget {
  operationId: string;
  what: string;
  /** The request, with the run's records, made harmless; undefined when the run knows no such record. */
  request(t: RuleContext): Promise<RequestSpec | undefined>;
  /** Reads the record back with the run's key: it must be as before. */
  readBack?(t: RuleContext, request: RequestSpec): Promise<Exchange>;
}

async function ownIntegration(t: RuleContext): Promise<Record<string, any> | undefined> {
  const id = t.fixtures.integrationId;
  if (id) return obj(await t.call("getIntegration", { method: "GET", path: `/v1/integrations/${enc(id)}` }));
  // A foreign target: one of the run's own (the ledger lists it).
  const created = await t.call("createIntegration", {
    method: "POST",
    path: "/v1/integrations",
    body: { name: `${t.fixtures.runId} isolation` },
  });
  return created.status === 201 ? obj(created) : undefined;
}

const WRITES: WriteTarget[] = [
  {
    operationId: "updateIntegration",
    what: "an integration of the run, patched with its own description",
    request: async (t) => {
      const integration = await ownIntegration(t);
      return integration?.integrationId
        ? {
            method: "PATCH",
            path: `/v1/integrations/${enc(integration.integrationId)}`,
            body: { name: integration.name },
          }
        : undefined;
    },
    readBack: (t, request) => t.call("getIntegration", { method: "GET", path: request.path }),
  },
  {
    operationId: "createIntegrationAuth",
    what: "credentials for an integration of the run",
    request: async (t) => {
      const integration = await ownIntegration(t);
      return integration?.integrationId
        ? {
            method: "POST",
            path: `/v1/integrations/${enc(integration.integrationId)}/auth`,
            body: { authType: "NONE" },
          }
        : undefined;
    },
    readBack: (t, request) => t.call("getIntegration", { method: "GET", path: request.path.replace(/\/auth$/, "") }),
  },
  {
    operationId: "updatePhoneNumber",
    what: "a phone number of the run's key, patched with its own label",
    request: async (t) => {
      const number = t.fixtures.phoneNumber;
      if (!number) return undefined;
      const page = await fetchPage(t, phoneNumbersList, { size: 50 });
      const current = page.data.find((p) => p.sipPhoneNumber === number);
      return current && typeof current.friendlyName === "string"
        ? { method: "PATCH", path: `/v1/phone-number/${enc(number)}`, body: { friendlyName: current.friendlyName } }
        : undefined;
    },
  },
  {
    operationId: "createBatchRun",
    what: "a batch run of the run's agent and test cases",
    request: async (t) =>
      t.fixtures.agentId && t.fixtures.testCaseIds.length > 0
        ? {
            method: "POST",
            path: "/v1/batch-runs",
            body: { agentId: t.fixtures.agentId, testCases: t.fixtures.testCaseIds },
          }
        : undefined,
  },
  {
    operationId: "createChat",
    what: "a chat with the run's agent",
    request: async (t) =>
      t.fixtures.agentId
        ? { method: "POST", path: "/v1/chat", body: { agentId: t.fixtures.agentId, conversation: "Hello" } }
        : undefined,
  },
  {
    operationId: "deleteQaRule",
    what: "a QA rule of the run's key, deleted",
    request: async (t) => {
      // Should a foreign target leak, the account would lose a rule: only the kit's mock is asked.
      if (!t.fixtures.control)
        return t.skip("would delete a QA rule of the account should the target leak (kit's mock only)");
      return t.fixtures.qaRuleId ? { method: "DELETE", path: `/v1/qa-rules/${enc(t.fixtures.qaRuleId)}` } : undefined;
    },
    readBack: (t, request) => t.call("getQaRule", { method: "GET", path: request.path }),
  },
];

function writeRule(target: WriteTarget): RuleSpec {
  return {
    id: `${target.operationId}.other-workspace`,
    operationId: target.operationId,
    level: "documented",
    readOnly: false,
    description: `${target.what[0].toUpperCase()}${target.what.slice(1)}, through another workspace's key: 403 or 404 (404 assumed), never 2xx, and nothing changes.`,
    run: async (t) => {
      const k = await keys(t);
      const request = await target.request(t);
      if (!request) return t.skip(`the run knows no record for ${target.operationId}`);
      const before = target.readBack ? await target.readBack(t, request) : undefined;
      expectRefused(t, await t.call(target.operationId, { ...request, key: k.other }), target.what);
      if (before && target.readBack) {
        const after = await target.readBack(t, request);
        t.expectEqual(after.json, before.json, "", `${target.what}: the record is unchanged after the refused request`);
      }
    },
  };
}

const LISTS: { cfg: ListConfig; collection: string }[] = [
  { cfg: agentsList, collection: "agents" },
  { cfg: callsList, collection: "calls" },
  { cfg: phoneNumbersList, collection: "phoneNumbers" },
  { cfg: webhooksList, collection: "webhooks" },
  { cfg: testRunsList, collection: "testRuns" },
];

/** Ids a list shows through `key`, over at most 8 pages of 25 (a longer list is said to be compared in part). */
async function listed(t: RuleContext, cfg: ListConfig, key: string): Promise<Set<string>> {
  const ids = new Set<string>();
  for (let page = 0; ; page++) {
    const ex = await t.call(cfg.operationId, { method: "GET", path: cfg.path, query: { page, size: 25 }, key });
    const body = obj(ex);
    for (const item of (body.data ?? []) as Record<string, any>[]) ids.add(cfg.idOf(item));
    if (ex.status !== 200 || body.hasNext !== true) break;
    if (page === 7) {
      t.fixtures.notCovered.push(
        `${cfg.operationId}.other-workspace: only the first 200 records of a list were compared`,
      );
      break;
    }
  }
  return ids;
}

function listRule({ cfg, collection }: (typeof LISTS)[number]): RuleSpec {
  return {
    id: `${cfg.operationId}.other-workspace`,
    operationId: cfg.operationId,
    level: "documented",
    readOnly: false,
    description: "A list through one key never shows a record of the other key's workspace, either way.",
    run: async (t) => {
      const k = await keys(t);
      const mine = await listed(t, cfg, k.mine);
      const theirs = k.otherRecords
        ? new Set((await k.otherRecords(collection)).map(cfg.idOf))
        : await listed(t, cfg, k.other);
      const through = k.otherRecords ? await listed(t, cfg, k.other) : theirs;
      if (mine.size + theirs.size === 0) return t.skip(`neither key lists any ${collection}`);
      const leakedToOther = [...mine].filter((id) => through.has(id));
      const leakedToMine = [...theirs].filter((id) => mine.has(id));
      t.expect(leakedToOther.length === 0, {
        pointer: "/data",
        expected: "none of the run's records",
        actual: leakedToOther.slice(0, 5).join(", "),
        message: `the second key's ${cfg.path} lists records of the run's workspace`,
      });
      t.expect(leakedToMine.length === 0, {
        pointer: "/data",
        expected: "none of the second key's records",
        actual: leakedToMine.slice(0, 5).join(", "),
        message: `the run's ${cfg.path} lists records of the second key's workspace`,
      });
    },
  };
}

export const isolationRules = defineRules("isolation", [
  ...READS.map(readRule),
  ...WRITES.map(writeRule),
  ...LISTS.map(listRule),
]);

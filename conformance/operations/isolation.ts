/**
 * API keys belong to workspaces: a record of another workspace is never visible through this key.
 * Only the kit's mock can make a second workspace (POST /__mock/workspaces), so elsewhere the rules
 * say they could not run. Not read-only: making the neighbour workspace changes the mock. Never 2xx is documented (403 and 404 are both documented answers); the kit
 * answers 404, as for an unknown id (assumption).
 */
import { mockControl } from "../fixtures/control.js";
import type { Fixtures } from "../fixtures/types.js";
import { defineRules, type RuleContext, type RuleSpec } from "../lib/rule.js";

const TARGETS = [
  { operationId: "getCall", collection: "calls", idOf: (r: Record<string, any>) => r.callId, path: (id: string) => `/v1/calls/${encodeURIComponent(id)}` },
  { operationId: "getIntegration", collection: "integrations", idOf: (r: Record<string, any>) => r.integrationId, path: (id: string) => `/v1/integrations/${encodeURIComponent(id)}` },
  { operationId: "getQaRule", collection: "qaRules", idOf: (r: Record<string, any>) => r.qaRuleId, path: (id: string) => `/v1/qa-rules/${encodeURIComponent(id)}` },
  { operationId: "getBatchRun", collection: "batchRuns", idOf: (r: Record<string, any>) => r.batchId, path: (id: string) => `/v1/batch-runs/${encodeURIComponent(id)}` },
];

/** One seeded neighbour workspace per run, made on first use. */
const neighbours = new WeakMap<Fixtures, Promise<string>>();

async function neighbour(t: RuleContext): Promise<string> {
  const control = t.fixtures.control;
  if (!control) return t.skip("needs the kit's mock to make a second workspace");
  if (!neighbours.has(t.fixtures)) neighbours.set(t.fixtures, control.createWorkspace({}).then((w) => w.workspaceId));
  return neighbours.get(t.fixtures)!;
}

function isolationRule(target: (typeof TARGETS)[number]): RuleSpec {
  return {
    id: `${target.operationId}.other-workspace`, operationId: target.operationId, level: "documented", readOnly: false,
    description: "A record of another workspace is not visible with this key: 404 (assumption), never 2xx.",
    run: async (t) => {
      const workspaceId = await neighbour(t);
      const records = await mockControl(t.fixtures.control!.baseUrl, workspaceId).listRecords(target.collection);
      if (records.length === 0) return t.skip(`the neighbour workspace holds no ${target.collection}`);
      for (const record of records.slice(0, 2)) {
        const ex = await t.call(target.operationId, { method: "GET", path: target.path(target.idOf(record)) });
        if (t.expectStatus(ex, [403, 404], "a record of another workspace is not served")) {
          t.expect(ex.status === 404, { pointer: "#status", expected: "404", actual: ex.status, message: "another workspace's record answers as an unknown id (assumption)", assumed: true });
        }
      }
    },
  };
}

export const isolationRules = defineRules("isolation", TARGETS.map(isolationRule));

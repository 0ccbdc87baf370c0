/**
 * Workspace isolation: every operation of generated/openapi.json, called with workspace B's key and
 * workspace A's ids (in the path, the query and the body), shows none of A's records and changes
 * none of them. A's whole store, secrets included, is compared before and after.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { exportSnapshot } from "../../store/snapshot.js";
import { collectionNames } from "../../store/records.js";
import type { Workspace } from "../../store/workspace.js";
import { useMock } from "../harness.js";

const t = useMock();

interface SpecOperation {
  operationId: string;
  method: string;
  path: string;
  query: string[];
  hasBody: boolean;
}

const spec = JSON.parse(readFileSync(new URL("../../../generated/openapi.json", import.meta.url), "utf8"));
const deref = (o: any) =>
  o?.$ref
    ? o.$ref
        .split("/")
        .slice(1)
        .reduce((n: any, k: string) => n[k], spec)
    : o;
const operations: SpecOperation[] = Object.entries<Record<string, any>>(spec.paths).flatMap(([path, item]) =>
  ["get", "post", "put", "patch", "delete"]
    .filter((m) => item[m])
    .map((m) => ({
      operationId: item[m].operationId,
      method: m.toUpperCase(),
      path,
      query: [...(item.parameters ?? []), ...(item[m].parameters ?? [])]
        .map(deref)
        .filter((p) => p.in === "query")
        .map((p) => p.name),
      hasBody: Boolean(item[m].requestBody),
    })),
);

/** Everything of a workspace that a write could touch: records and secrets. */
const storeOf = (w: Workspace) =>
  JSON.stringify({ records: exportSnapshot(w), credentials: [...w.credentials], trunks: [...w.trunks] });

function idsOf(w: Workspace): Set<string> {
  const ids = new Set<string>();
  for (const name of collectionNames) {
    const collection = w.collections[name] as unknown as { all(): object[]; idOf(r: object): string };
    for (const record of collection.all()) ids.add(collection.idOf(record));
  }
  return ids;
}

/** Every `workspaceId` anywhere in a JSON value. */
function workspaceIdsIn(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => workspaceIdsIn(v, found));
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (k === "workspaceId" && typeof v === "string") found.push(v);
      else workspaceIdsIn(v, found);
    }
  }
  return found;
}

describe("workspace isolation", () => {
  it("covers all 17 operations", () => expect(operations.length).toBe(17));

  it("never shows or changes A's records through B's key, on any operation", async () => {
    const a = await t.workspace({ seed: 11 });
    const b = await t.workspace({ seed: 12 });
    const wsA = t.mock.mock.services.workspaces.get(a.workspaceId)!;
    const wsB = t.mock.mock.services.workspaces.get(b.workspaceId)!;
    // A holds credentials and trunk secrets of its own, set through its own key.
    const integrationId = wsA.collections.integrations.all()[0].integrationId;
    await a.api.POST("/v1/integrations/{integrationId}/auth", {
      params: { path: { integrationId } },
      body: { authType: "BEARER", token: "a-token" },
    });
    const phoneNumber = wsA.collections.phoneNumbers.all()[0].sipPhoneNumber;
    await a.api.PATCH("/v1/phone-number/{phoneNumber}", {
      params: { path: { phoneNumber } },
      body: { trunkPassword: "a-password" },
    });

    const agentId = wsA.collections.agents.all()[0].agentId;
    const batch = wsA.collections.batchRuns.all()[0];
    const idsA: Record<string, string> = {
      integrationId,
      phoneNumber,
      agentId,
      batchId: batch.batchId,
      qaRuleId: wsA.collections.qaRules.all()[0].qaRuleId,
      callId: wsA.collections.calls.all()[0].callId,
    };
    const kb = () => {
      const form = new FormData();
      form.set("name", "made by B");
      form.set("knowledge_base_texts", '["B text"]');
      return form;
    };
    const bodies: Record<string, () => unknown> = {
      createIntegration: () => ({ name: "made by B" }),
      updateIntegration: () => ({ name: "changed by B", description: "changed by B" }),
      createIntegrationAuth: () => ({ authType: "BASIC", username: "b", password: "b-password" }),
      createBatchRun: () => ({
        agentId,
        testCases: wsA.collections.testCases
          .all()
          .slice(0, 2)
          .map((c) => c.testCaseId),
      }),
      createKnowledgeBase: kb,
      updatePhoneNumber: () => ({ friendlyName: "changed by B", trunkPassword: "b-password", inboundAgentId: agentId }),
      createChat: () => ({ agentId, conversation: "hello from B" }),
    };

    const before = storeOf(wsA);
    const onlyA = [...idsOf(wsA)].filter((id) => !idsOf(wsB).has(id));
    expect(onlyA.length).toBeGreaterThan(50);
    let calls = 0;
    for (const op of operations) {
      const path = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
        if (!(name in idsA)) throw new Error(`no id of A for path parameter ${name} of ${op.operationId}: add one`);
        return encodeURIComponent(idsA[name]);
      });
      if (op.hasBody && !bodies[op.operationId]) throw new Error(`no request body for ${op.operationId}: add one`);
      const filtered = op.query.filter((q) => q in idsA).map((q) => `${q}=${encodeURIComponent(idsA[q])}`);
      for (const query of filtered.length > 0 ? ["", `?${filtered.join("&")}`] : [""]) {
        const body = op.hasBody ? bodies[op.operationId]() : undefined;
        const res = await t.raw(path + query, {
          method: op.method,
          key: b.apiKey,
          headers: body === undefined || body instanceof FormData ? {} : { "Content-Type": "application/json" },
          body: body === undefined ? undefined : body instanceof FormData ? body : JSON.stringify(body),
        });
        calls++;
        const text = await res.text();
        const label = `${op.method} ${path}${query} -> ${res.status}`;
        expect(res.status, label).toBeLessThan(500);
        // What B sent may be echoed (an error's path and message name the id asked for); nothing else of A.
        const unechoed = Object.values(idsA).reduce(
          (rest, id) => rest.split(id).join("").split(encodeURIComponent(id)).join(""),
          text,
        );
        expect(
          onlyA.filter((id) => unechoed.includes(id)),
          label,
        ).toEqual([]);
        if (text)
          expect(new Set(workspaceIdsIn(JSON.parse(text))), label).toEqual(
            new Set(workspaceIdsIn(JSON.parse(text)).length ? [b.workspaceId] : []),
          );
        // A's record named in the path, or an agent of A named in the body: not found, for B.
        if (op.path.includes("{") || ["createBatchRun", "createChat"].includes(op.operationId))
          expect(res.status, label).toBe(404);
      }
    }
    expect(calls).toBeGreaterThanOrEqual(17);
    expect(storeOf(wsA)).toBe(before);
  });
});

/** E2 create, E3 get, E4 partial update and E5 credentials of integrations (2.4 to 2.6). */
import { randomUUID } from "node:crypto";
import { defineRules, obj, type RuleContext } from "../lib/rule.js";
import { getMatchesStore } from "./store-agreement.js";

/** Creates an integration named with the run id (on a foreign target the ledger lists it: fixtures/ledger.ts). */
export async function createIntegration(
  t: RuleContext,
  body: Record<string, unknown> = {},
): Promise<Record<string, any> | undefined> {
  const ex = await t.call("createIntegration", {
    method: "POST",
    path: "/v1/integrations",
    body: { name: `${t.fixtures.runId} integration`, description: DESCRIPTION, ...body },
  });
  if (!t.expectStatus(ex, 201, "E2 answers 201")) return undefined;
  const created = obj(ex);
  return created;
}

/** Not ASCII on purpose: a body sent in another encoding than UTF-8 cannot echo it. */
const DESCRIPTION = "Created by the conformance suite: Zoë’s café, Straße, 東京 ✓";

const getPath = (id: string) => `/v1/integrations/${encodeURIComponent(id)}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Lets time pass between two writes, so updatedAt can move: the mock's clock, or real time elsewhere. */
async function letTimePass(t: RuleContext): Promise<void> {
  if (!(await t.fixtures.advanceClock(2))) await sleep(1100);
}

const SECRETS = { token: "tok-SECRET-7f3a", password: "pw-SECRET-9c1d", apiKeyValue: "key-SECRET-2b8e" };

const AUTH_BODIES: Record<string, Record<string, unknown>> = {
  BEARER: { authType: "BEARER", token: SECRETS.token },
  BASIC: { authType: "BASIC", username: "client-id", password: SECRETS.password },
  API_KEY: {
    authType: "API_KEY",
    apiKey: { key: "X-Api-Token", value: SECRETS.apiKeyValue, position: "header" },
    headers: [{ key: "Accept", value: "application/json" }],
  },
  NONE: { authType: "NONE" },
};

function expectNoSecret(t: RuleContext, text: string, where: string): void {
  for (const secret of Object.values(SECRETS)) {
    t.expect(!text.includes(secret), {
      pointer: "",
      expected: "no credential",
      actual: `contains ${secret}`,
      message: `${where} does not echo credentials (2.4, 2.5)`,
    });
  }
}

export const integrationRules = defineRules("integrations", [
  {
    id: "createIntegration.created",
    operationId: "createIntegration",
    level: "documented",
    readOnly: false,
    description:
      "E2 answers 201 with integrationId, the name and description sent, and tools as an array; E3 returns it.",
    run: async (t) => {
      const created = await createIntegration(t);
      if (!created) return;
      t.expect(typeof created.integrationId === "string" && created.integrationId.length > 0, {
        pointer: "/integrationId",
        expected: "an identifier",
        actual: created.integrationId,
        message: "E2 includes integrationId",
      });
      t.expect(Array.isArray(created.tools), {
        pointer: "/tools",
        expected: "an array",
        actual: created.tools,
        message: "tools is an array (empty: no tools)",
      });
      t.expectEqual(created.name, `${t.fixtures.runId} integration`, "/name", "E2 stores the name sent");
      t.expectEqual(created.description, DESCRIPTION, "/description", "E2 stores the description sent, in UTF-8");
      const ex = await t.call("getIntegration", { method: "GET", path: getPath(created.integrationId) });
      if (t.expectStatus(ex, 200)) t.expectEqual(obj(ex), created, "", "E3 returns the integration E2 created");
    },
  },
  {
    id: "createIntegration.defaults",
    operationId: "createIntegration",
    level: "assumed",
    readOnly: false,
    description: "Without a description it is null; a new integration has no credentials (null) and no tools.",
    run: async (t) => {
      const ex = await t.call("createIntegration", {
        method: "POST",
        path: "/v1/integrations",
        body: { name: `${t.fixtures.runId} bare` },
      });
      if (!t.expectStatus(ex, 201)) return;
      t.expectEqual(obj(ex).description, null, "/description", "description is null when not given");
      t.expectEqual(obj(ex).authentication, null, "/authentication", "authentication is null until E5");
      t.expectEqual(obj(ex).tools, [], "/tools", "a new integration has no tools");
    },
  },
  {
    id: "createIntegration.invalid-body",
    operationId: "createIntegration",
    level: "assumed",
    readOnly: false,
    description: "A missing name, an empty name, a wrong type or an unknown field answer 400 naming the field.",
    run: async (t) => {
      const cases: [Record<string, unknown>, string][] = [
        [{ description: "x" }, "name"],
        [{ name: "" }, "name"],
        [{ name: 42 }, "name"],
        [{ name: "x", color: "red" }, "color"],
      ];
      for (const [body, field] of cases) {
        const ex = await t.call("createIntegration", { method: "POST", path: "/v1/integrations", body });
        if (!t.expectStatus(ex, 400, `E2 rejects ${JSON.stringify(body)}`)) continue;
        t.expect(typeof obj(ex).validationErrors?.[field] === "string", {
          pointer: `/validationErrors/${field}`,
          expected: "a message",
          actual: obj(ex).validationErrors,
          message: `validationErrors names ${field}`,
        });
      }
    },
  },
  {
    id: "updateIntegration.partial",
    operationId: "updateIntegration",
    level: "documented",
    readOnly: false,
    description: "E4 changes only the fields sent; omitted fields stay; updatedAt moves; E3 shows the change.",
    run: async (t) => {
      const created = await createIntegration(t);
      if (!created) return;
      await letTimePass(t);
      const ex = await t.call("updateIntegration", {
        method: "PATCH",
        path: getPath(created.integrationId),
        body: { description: "changed" },
      });
      if (!t.expectStatus(ex, 200)) return;
      const updated = obj(ex);
      t.expectEqual(updated.description, "changed", "/description", "E4 applies the supplied field");
      t.expectEqual(updated.name, created.name, "/name", "E4 leaves an omitted field unchanged");
      t.expectEqual(updated.createdAt, created.createdAt, "/createdAt", "E4 does not move createdAt");
      t.expect(Date.parse(updated.updatedAt) > Date.parse(created.updatedAt), {
        pointer: "/updatedAt",
        expected: `later than ${created.updatedAt}`,
        actual: updated.updatedAt,
        message: "updatedAt moves on update",
      });
      const renamed = await t.call("updateIntegration", {
        method: "PATCH",
        path: getPath(created.integrationId),
        body: { name: `${t.fixtures.runId} renamed` },
      });
      if (t.expectStatus(renamed, 200))
        t.expectEqual(
          obj(renamed).description,
          "changed",
          "/description",
          "a later E4 of name only keeps the description",
        );
      const read = await t.call("getIntegration", { method: "GET", path: getPath(created.integrationId) });
      if (t.expectStatus(read, 200)) t.expectEqual(obj(read), obj(renamed), "", "E3 shows what E4 stored");
    },
  },
  getMatchesStore(
    "getIntegration",
    { collection: "integrations", idOf: (i) => i.integrationId },
    (f) => [f.integrationId],
    getPath,
  ),
  {
    id: "updateIntegration.invalid-body",
    operationId: "updateIntegration",
    level: "assumed",
    readOnly: false,
    description:
      "E4 bounds as E2: an empty name, a wrong type, null or an unknown field answer 400 naming the field, and change nothing.",
    run: async (t) => {
      const created = await createIntegration(t);
      if (!created) return;
      const cases: [Record<string, unknown>, string][] = [
        [{ name: "" }, "name"],
        [{ name: 42 }, "name"],
        [{ description: null }, "description"],
        [{ color: "red" }, "color"],
      ];
      for (const [body, field] of cases) {
        const ex = await t.call("updateIntegration", { method: "PATCH", path: getPath(created.integrationId), body });
        if (!t.expectStatus(ex, 400, `E4 rejects ${JSON.stringify(body)}`)) continue;
        t.expect(typeof obj(ex).validationErrors?.[field] === "string", {
          pointer: `/validationErrors/${field}`,
          expected: "a message",
          actual: obj(ex).validationErrors,
          message: `validationErrors names ${field}`,
        });
      }
      const read = await t.call("getIntegration", { method: "GET", path: getPath(created.integrationId) });
      if (t.expectStatus(read, 200)) t.expectEqual(obj(read), created, "", "a rejected E4 changes nothing");
    },
  },
  {
    id: "getIntegration.unknown-id",
    operationId: "getIntegration",
    level: "documented",
    readOnly: true,
    description: "An unknown integrationId answers 404.",
    run: async (t) =>
      void t.expectStatus(await t.call("getIntegration", { method: "GET", path: getPath(randomUUID()) }), 404),
  },
  {
    id: "updateIntegration.unknown-id",
    operationId: "updateIntegration",
    level: "documented",
    readOnly: false,
    description: "E4 on an unknown integrationId answers 404.",
    run: async (t) =>
      void t.expectStatus(
        await t.call("updateIntegration", { method: "PATCH", path: getPath(randomUUID()), body: { description: "x" } }),
        404,
      ),
  },
  {
    id: "createIntegrationAuth.unknown-id",
    operationId: "createIntegrationAuth",
    level: "documented",
    readOnly: false,
    description: "E5 on an unknown integrationId answers 404.",
    run: async (t) =>
      void t.expectStatus(
        await t.call("createIntegrationAuth", {
          method: "POST",
          path: `${getPath(randomUUID())}/auth`,
          body: AUTH_BODIES.NONE,
        }),
        404,
      ),
  },
  ...Object.entries(AUTH_BODIES).map(([authType, body]) => ({
    id: `createIntegrationAuth.${authType.toLowerCase().replace("_", "-")}`,
    operationId: "createIntegrationAuth",
    level: "documented" as const,
    readOnly: false,
    description: `E5 stores ${authType} credentials: E3 then shows the auth summary with authType ${authType} and never the secret.`,
    run: async (t: RuleContext) => {
      const created = await createIntegration(t);
      if (!created) return;
      const ex = await t.call("createIntegrationAuth", {
        method: "POST",
        path: `${getPath(created.integrationId)}/auth`,
        body,
      });
      if (
        !t.expect(ex.status >= 200 && ex.status < 300, {
          pointer: "#status",
          expected: "2xx",
          actual: ex.status,
          message: "E5 accepts a valid payload",
        })
      )
        return;
      t.expect(ex.status === 200, {
        pointer: "#status",
        expected: "200",
        actual: ex.status,
        message: "E5 answers 200 (assumption: the reference's default success code)",
        assumed: true,
      });
      expectNoSecret(t, ex.text, "E5");
      if (t.isAssumed) {
        t.expectEqual(obj(ex).authType, authType, "/authType", "E5 answers the auth summary");
        t.expectEqual(
          obj(ex).integrationId,
          created.integrationId,
          "/integrationId",
          "E5 answers the integration's auth",
        );
      }
      const read = await t.call("getIntegration", { method: "GET", path: getPath(created.integrationId) });
      if (!t.expectStatus(read, 200)) return;
      t.expectEqual(
        obj(read).authentication?.authType,
        authType,
        "/authentication/authType",
        "E3 shows the stored auth summary",
      );
      t.expectEqual(
        obj(read).authentication?.integrationId,
        created.integrationId,
        "/authentication/integrationId",
        "the auth summary names its integration (2.5)",
      );
      expectNoSecret(t, read.text, "E3");
      if (authType === "API_KEY")
        t.expectEqual(
          obj(read).authentication?.headers,
          [{ key: "Accept", value: "application/json" }],
          "/authentication/headers",
          "custom headers are kept",
        );
    },
  })),
  {
    id: "createIntegrationAuth.missing-credential",
    operationId: "createIntegrationAuth",
    level: "documented",
    readOnly: false,
    description: "token is required for BEARER, username and password for BASIC, apiKey for API_KEY: without them 400.",
    run: async (t) => {
      const created = await createIntegration(t);
      if (!created) return;
      for (const body of [
        { authType: "BEARER" },
        { authType: "BASIC", username: "u" },
        { authType: "API_KEY" },
        { authType: "DIGEST" },
      ]) {
        t.expectStatus(
          await t.call("createIntegrationAuth", {
            method: "POST",
            path: `${getPath(created.integrationId)}/auth`,
            body,
          }),
          400,
          `E5 rejects ${JSON.stringify(body)}`,
        );
      }
    },
  },
]);

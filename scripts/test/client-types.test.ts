/**
 * The typed clients of generated/client.ts. Compile-time: `npm run typecheck` (tsc includes scripts/)
 * fails when a `@ts-expect-error` line below compiles, i.e. when the types stop catching a wrong call.
 * Run time: the platform client sends X-API-Key, the control-plane client sends none.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  type MockControlClient,
  type PlatformClient,
  type components,
  createControlClient,
  createPlatformClient,
} from "../../generated/client.js";

/** Never called: it exists for the type checker. Each `@ts-expect-error` must meet an error. */
export async function compileChecks(client: PlatformClient, control: MockControlClient): Promise<void> {
  // Correct calls compile.
  await client.GET("/v1/calls", { params: { query: { status: "in_progress", page: 0, size: 20 } } });
  await client.GET("/v1/calls/{callId}", { params: { path: { callId: "c1" } } });
  await client.PATCH("/v1/phone-number/{phoneNumber}", {
    params: { path: { phoneNumber: "+14155550123" } },
    body: { friendlyName: "Main line", trunkPassword: "<SIP_TRUNK_PASSWORD>" },
  });
  await client.POST("/v1/integrations/{integrationId}/auth", {
    params: { path: { integrationId: "i1" } },
    body: { authType: "API_KEY", apiKey: { key: "X-Token", value: "v", position: "query" } },
  });
  await client.POST("/v1/chat", { body: { agentId: "a1", conversation: "Hi", variables: { customerName: "Dana" } } });
  await client.DELETE("/v1/qa-rules/{qaRuleId}", { params: { path: { qaRuleId: "q1" } } });
  await client.GET("/v1/webhooks", { params: { query: { agentId: "a1", active: false } } });
  await control.POST("/__mock/clock/advance", { body: { seconds: 60 } });

  // A wrong path: the plural phone number path does not exist.
  // @ts-expect-error
  await client.GET("/v1/phone-numbers", {});
  // A method the reference does not have on a path.
  // @ts-expect-error
  await client.DELETE("/v1/calls/{callId}", { params: { path: { callId: "c1" } } });
  // A missing required path parameter.
  // @ts-expect-error
  await client.GET("/v1/calls/{callId}", { params: { path: {} } });
  // No params at all where a path parameter is required.
  // @ts-expect-error
  await client.GET("/v1/integrations/{integrationId}");
  // A wrong body field (the request body says terminationSipUri, the response terminationSipURI).
  await client.PATCH("/v1/phone-number/{phoneNumber}", {
    params: { path: { phoneNumber: "+14155550123" } },
    // @ts-expect-error
    body: { terminationSipURI: "sip:trunk.example.com" },
  });
  // A missing required body field (E16 agentId).
  // @ts-expect-error
  await client.POST("/v1/chat", { body: { conversation: "Hi" } });
  // A wrong enum value in a query parameter.
  // @ts-expect-error
  await client.GET("/v1/calls", { params: { query: { status: "finished" } } });
  // A wrong enum value in a body.
  await client.POST("/v1/integrations/{integrationId}/auth", {
    params: { path: { integrationId: "i1" } },
    // @ts-expect-error
    body: { authType: "OAUTH" },
  });
  // A BEARER payload without its token.
  await client.POST("/v1/integrations/{integrationId}/auth", {
    params: { path: { integrationId: "i1" } },
    // @ts-expect-error
    body: { authType: "BEARER" },
  });
  // The control plane is another client: it has no /v1 paths.
  // @ts-expect-error
  await control.GET("/v1/calls", {});

  // Response types follow the spec, quirks included.
  const phones = await client.GET("/v1/phone-number");
  if (phones.data) {
    expectTypeOf(phones.data.totalCounts).toEqualTypeOf<number>();
    // @ts-expect-error the phone number list has totalCounts, not totalCount
    void phones.data.totalCount;
  }
  const webhooks = await client.GET("/v1/webhooks");
  if (webhooks.data) expectTypeOf(webhooks.data.data[0].events).toEqualTypeOf<string>();
  expectTypeOf<components["schemas"]["AgentWebhook"]["events"]>().toEqualTypeOf<string[]>();
  expectTypeOf<components["schemas"]["Call"]["terminationReason"]>().toEqualTypeOf<
    components["schemas"]["TerminationReason"] | null
  >();
  const deleted = await client.DELETE("/v1/qa-rules/{qaRuleId}", { params: { path: { qaRuleId: "q1" } } });
  expectTypeOf(deleted.data).toEqualTypeOf<never | undefined>();
}

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

/** A tiny HTTP server on an ephemeral port that records requests and answers `{}`. */
async function withServer(run: (baseUrl: string, seen: Seen[]) => Promise<void>): Promise<void> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers });
    req.resume();
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  try {
    await run(`http://127.0.0.1:${port}`, seen);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
  }
}

describe("generated clients at run time", () => {
  it.each([
    [
      "GET /v1/calls with a query",
      {
        given: (c: PlatformClient) => c.GET("/v1/calls", { params: { query: { status: "ended" } } }),
        want: "/v1/calls?status=ended",
      },
    ],
    [
      "PATCH an E.164 path value",
      {
        given: (c: PlatformClient) =>
          c.PATCH("/v1/phone-number/{phoneNumber}", { params: { path: { phoneNumber: "+14155550123" } }, body: {} }),
        want: "/v1/phone-number/%2B14155550123",
      },
    ],
  ])("the platform client sends X-API-Key on %s", async (_name, { given, want }) => {
    await withServer(async (baseUrl, seen) => {
      const client = createPlatformClient({ baseUrl, apiKey: "test-key-123" });
      const { response } = await given(client);
      expect(response.status).toBe(200);
      expect(seen).toHaveLength(1);
      expect(seen[0].headers["x-api-key"]).toBe("test-key-123");
      expect(seen[0].url).toBe(want);
    });
  });

  it("the control-plane client sends no API key", async () => {
    await withServer(async (baseUrl, seen) => {
      const control = createControlClient({ baseUrl });
      const { response } = await control.GET("/__mock/health");
      expect(response.status).toBe(200);
      expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual(["GET /__mock/health"]);
      expect(seen[0].headers["x-api-key"]).toBeUndefined();
    });
  });
});

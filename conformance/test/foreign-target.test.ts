/**
 * The suite against deployments that are not the kit's mock: detection by proof only, a deployment
 * behind a path prefix, no control-plane request, and no trace left (everything changed is put back,
 * everything created is in the ledger). The "foreign" deployment is the kit's mock behind a gateway
 * on loopback that serves it under /api, so the test can look at its store afterwards.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../cli.js";
import { hasMock, NO_MOCK, startKitMock, type Running } from "./support.js";

interface Gateway {
  url: string;
  /** Every request as it reached the gateway: method and path (with the prefix). */
  seen: { method: string; path: string }[];
  close(): Promise<void>;
}

/**
 * Serves `upstream`'s /v1 under `prefix`; anything else answers 404 text, as a gateway does. With
 * `fullErrorPaths`, error bodies name the full path (/api/v1/...), as a deployment that sees it may.
 */
async function startGateway(
  upstream: string,
  prefix: string,
  options: { fullErrorPaths?: boolean; health?: unknown } = {},
): Promise<Gateway> {
  const seen: Gateway["seen"] = [];
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? "/", "http://gateway");
    seen.push({ method: req.method ?? "GET", path: url.pathname });
    if (options.health !== undefined && url.pathname === `${prefix}/__mock/health`)
      return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(options.health));
    // Only the API passes: the mock's control plane stays behind the gateway.
    if (!url.pathname.startsWith(`${prefix}/v1/`))
      return void res.writeHead(404, { "content-type": "text/plain" }).end("no route");
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers))
      if (v !== undefined && k !== "host" && k !== "content-length") headers.set(k, Array.isArray(v) ? v.join(",") : v);
    const method = req.method ?? "GET";
    const upstreamRes = await fetch(`${upstream}${url.pathname.slice(prefix.length)}${url.search}`, {
      method,
      headers,
      body: method === "GET" ? undefined : Buffer.concat(chunks),
    });
    let body = Buffer.from(await upstreamRes.arrayBuffer());
    if (options.fullErrorPaths && upstreamRes.status >= 400 && body.length > 0) {
      const parsed = JSON.parse(body.toString("utf8"));
      parsed.path = `${prefix}${parsed.path}`;
      body = Buffer.from(JSON.stringify(parsed));
    }
    const out: Record<string, string> = {};
    upstreamRes.headers.forEach((v, k) => {
      if (!["content-length", "content-encoding", "transfer-encoding"].includes(k)) out[k] = v;
    });
    res.writeHead(upstreamRes.status, out).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Collections a run could change, read through the control plane (the test's view, not the suite's). */
const COLLECTIONS = [
  "agents",
  "phoneNumbers",
  "integrations",
  "knowledgeBases",
  "webhooks",
  "qaRules",
  "testCases",
  "batchRuns",
  "chats",
  "mockToolData",
  "apiKeys",
];
const ID: Record<string, string> = {
  agents: "agentId",
  phoneNumbers: "sipPhoneNumber",
  integrations: "integrationId",
  knowledgeBases: "kbId",
  webhooks: "webhookId",
  qaRules: "qaRuleId",
  testCases: "testCaseId",
  batchRuns: "batchId",
  chats: "id",
  mockToolData: "mockToolDataId",
  apiKeys: "apiKeyId",
};
/** What moves by itself on a live workspace (batch runs progress with the clock): compared by id only. */
const LIVE = new Set(["batchRuns", "chats"]);

async function snapshot(mockUrl: string): Promise<Record<string, Map<string, unknown>>> {
  const out: Record<string, Map<string, unknown>> = {};
  for (const c of COLLECTIONS) {
    const records = (await (await fetch(`${mockUrl}/__mock/workspaces/default/${c}`)).json()) as Record<
      string,
      unknown
    >[];
    out[c] = new Map(records.map((r) => [String(r[ID[c]] ?? JSON.stringify(r)), r]));
  }
  return out;
}

describe.skipIf(!hasMock)(`foreign targets${hasMock ? "" : ` (skipped: ${NO_MOCK})`}`, () => {
  let mock: Running;
  // A real clock: a foreign deployment's only clock is its Date header.
  beforeAll(async () => void (mock = await startKitMock({ clock: "real" })));
  afterAll(async () => mock?.close());

  it("a server answering /__mock/health without the kit's identity is foreign, and gets nothing else under /__mock", async () => {
    const gateway = await startGateway(mock.url, "/api", { health: { status: "ok" } });
    try {
      const out: string[] = [];
      const { code, run } = await main(
        ["--base-url", `${gateway.url}/api`, "--api-key", mock.apiKey, "--only", "listAgents.defaults"],
        {},
        { out: (t) => out.push(t), err: (t) => out.push(t) },
      );
      expect(code).toBe(0);
      expect(run!.target.kind).toBe("foreign");
      expect(out[0]).toMatch(
        /^Target .*: a foreign deployment \(GET \/__mock\/health answered without the kit's identity/,
      );
      expect(gateway.seen.filter((r) => r.path.includes("__mock"))).toEqual([
        { method: "GET", path: "/api/__mock/health" },
      ]);
    } finally {
      await gateway.close();
    }
  });

  it("--target foreign sends no control-plane request at all, even to the kit's mock; --target mock is taken at its word", async () => {
    const gateway = await startGateway(mock.url, "");
    try {
      const { run } = await main(
        ["--base-url", gateway.url, "--api-key", mock.apiKey, "--target", "foreign", "--only", "listCalls", "--quiet"],
        {},
        { out: () => {}, err: () => {} },
      );
      expect(run!.target).toMatchObject({ kind: "foreign", reason: expect.stringContaining("--target foreign") });
      expect(gateway.seen.length).toBeGreaterThan(10);
      expect(gateway.seen.filter((r) => r.path.includes("/__mock"))).toEqual([]);
      const forced = await main(
        [
          "--base-url",
          mock.url,
          "--api-key",
          mock.apiKey,
          "--target",
          "mock",
          "--only",
          "listCalls.defaults",
          "--quiet",
        ],
        {},
        { out: () => {}, err: () => {} },
      );
      expect(forced.run!.target.kind).toBe("mock");
    } finally {
      await gateway.close();
    }
  });

  it.each([
    ["relative to the base URL (/v1/...)", false],
    ["in full (/api/v1/...)", true],
  ])("behind a path prefix, error paths %s pass at both levels", async (_name, fullErrorPaths) => {
    const gateway = await startGateway(mock.url, "/api", { fullErrorPaths });
    try {
      for (const level of ["documented", "assumed"]) {
        const { code, run } = await main(
          [
            "--base-url",
            `${gateway.url}/api`,
            "--api-key",
            mock.apiKey,
            "--level",
            level,
            "--only",
            "/auth|invalid|unknown-id|listAgents/",
            "--quiet",
          ],
          {},
          { out: () => {}, err: () => {} },
        );
        const failed = run!.results
          .filter((r) => r.outcome !== "passed" && r.outcome !== "skipped")
          .map(
            (r) =>
              `${r.id}: ${r.failures[0]?.pointer} ${r.failures[0]?.message} ${r.failures[0]?.expected} ${r.failures[0]?.actual}`,
          );
        expect(failed).toEqual([]);
        expect(code).toBe(0);
        expect(run!.coverage.getCall["404"]).toBeGreaterThan(0);
      }
    } finally {
      await gateway.close();
    }
  });

  it("a whole run at level assumed with a second key leaves the target as it found it, and its ledger names all it created", async () => {
    const gateway = await startGateway(mock.url, "/api");
    const second = (await (
      await fetch(`${mock.url}/__mock/workspaces`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      })
    ).json()) as { apiKey: string };
    try {
      const before = await snapshot(mock.url);
      const { code, run } = await main(
        [
          "--base-url",
          `${gateway.url}/api`,
          "--api-key",
          mock.apiKey,
          "--second-api-key",
          second.apiKey,
          "--level",
          "assumed",
          "--quiet",
        ],
        {},
        { out: () => {}, err: () => {} },
      );
      const after = await snapshot(mock.url);
      const crashed = run!.results.filter((r) => r.outcome === "errored").map((r) => `${r.id}: ${r.error}`);
      expect(crashed).toEqual([]);
      // The kit's mock, as a foreign deployment behind a prefix, conforms at level assumed too.
      expect(
        run!.results
          .filter((r) => r.outcome === "failed")
          .map((r) => `${r.id}: ${r.failures[0].message} ${r.failures[0].expected} ${r.failures[0].actual}`),
      ).toEqual([]);
      expect(code).toBe(0);
      expect(run!.target.kind).toBe("foreign");
      expect(gateway.seen.filter((r) => r.path.includes("/__mock") && r.path !== "/api/__mock/health")).toEqual([]);
      // The isolation rules ran with the second key.
      expect(
        run!.results.filter((r) => r.id.endsWith(".other-workspace") && r.outcome === "passed").length,
      ).toBeGreaterThanOrEqual(10);
      const ledger = new Set(run!.ledger.map((e) => `${e.kind}:${e.id}`));
      const kindOf: Record<string, string> = {
        integrations: "integration",
        knowledgeBases: "knowledge base",
        batchRuns: "batch run",
        chats: "chat",
      };
      for (const c of COLLECTIONS) {
        for (const [id, record] of before[c]) {
          expect(after[c].has(id), `${c} ${id} is still there`).toBe(true);
          if (!LIVE.has(c)) expect(after[c].get(id), `${c} ${id} is unchanged`).toEqual(record);
        }
        const created = [...after[c].keys()].filter((id) => !before[c].has(id));
        for (const id of created)
          expect(ledger.has(`${kindOf[c]}:${id}`), `new ${c} ${id} is in the ledger`).toBe(true);
      }
      // The phone number rules changed fields and put them back, and said so.
      expect(run!.ledger.filter((e) => e.kind === "phone number").map((e) => e.state)).toContain("restored");
      expect(run!.ledger.filter((e) => e.state === "not-restored")).toEqual([]);
    } finally {
      await gateway.close();
    }
  });
});

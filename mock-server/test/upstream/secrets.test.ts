/**
 * Secrets stay in the upstream door: an upstream that echoes them (a webhook signing secret in an agent's
 * settings, the client's key and the door's upstream key in an error message and a header, a session
 * cookie) reaches the client unchanged, as a proxy must, but nothing the door keeps or tells holds them:
 * not the records it recorded, the workspace's snapshot, the request journal, the drift findings, the
 * console, nor the drift command's reports.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMock, type RunningMock } from "../../server.js";
import { copy, realAnswer, startUpstream, type OwnUpstream } from "./broken-upstream.js";

const WEBHOOK_SECRET = "whsec-from-upstream-123";
const UPSTREAM_KEY = "upstream-key-secret-9";
const CLIENT_KEY = "client-key-secret-7";
const COOKIE = "cookie-secret-5";
const SECRETS = [WEBHOOK_SECRET, UPSTREAM_KEY, CLIENT_KEY, COOKIE];

const REDACTED = "[redacted]";
const CALL = "00000000-0000-4000-8000-0000000000aa";
const WEBHOOK_ID = "00000000-0000-4000-8000-0000000000bb";

/** The secrets a text holds; [] when it holds none. */
const secretsIn = (text: string) => SECRETS.filter((s) => text.includes(s));

const driftCommand = new URL("../../../conformance/drift/command.ts", import.meta.url);

describe("secrets an upstream echoes", () => {
  let real: RunningMock;
  let upstream: OwnUpstream;
  let door: RunningMock;
  let agentId: string;
  const lines: string[] = [];
  const answers: { status: number; text: string; headers: Headers }[] = [];

  beforeAll(async () => {
    real = await startMock({ log: () => {} });
    const page = copy((await realAnswer(real, "/v1/agents")).body);
    agentId = page.data[0].agentId;
    page.data[0].agentSettings.webhooks = [
      {
        webhookId: WEBHOOK_ID,
        name: "Upstream hook",
        url: "https://hooks.example.com/upstream",
        secret: WEBHOOK_SECRET,
        events: ["conversation_started"],
      },
    ];
    // A drift besides, so the exchange with the secret is kept among the findings.
    page.totalPages += 1;
    const notFound = (await realAnswer(real, `/v1/calls/${CALL}`)).body;
    upstream = await startUpstream({
      "GET /v1/agents": {
        status: 200,
        headers: { "set-cookie": [`session=${COOKIE}; Path=/; HttpOnly`, "theme=dark"] },
        body: page,
      },
      // An error that says too much: the key it got, the client's key, and a path that gives it away (drift).
      [`GET /v1/calls/${CALL}`]: (req) => ({
        status: 404,
        headers: { "x-seen-key": String(req.headers["x-api-key"]) },
        body: {
          ...notFound,
          message: `No call ${CALL} for key ${req.headers["x-api-key"]} (the client once used ${CLIENT_KEY})`,
          path: `/v1/calls/${CALL}?key=${CLIENT_KEY}`,
        },
      }),
    });
    door = await startMock({
      upstream: upstream.url,
      upstreamApiKey: UPSTREAM_KEY,
      record: "rec",
      log: (line) => lines.push(line),
      onRequest: (entry) => lines.push(JSON.stringify(entry)),
    });
    for (const path of ["/v1/agents", `/v1/calls/${CALL}`]) {
      const res = await fetch(`${door.url}${path}`, { headers: { "X-API-Key": CLIENT_KEY } });
      answers.push({ status: res.status, text: await res.text(), headers: res.headers });
    }
  });
  afterAll(async () => {
    await door?.close();
    await upstream?.close();
    await real?.close();
  });

  const control = async (path: string) => {
    const res = await fetch(`${door.url}/__mock${path}`);
    const text = await res.text();
    expect(res.status, `${path}: ${text.slice(0, 300)}`).toBe(200);
    return text;
  };

  it("go to the upstream and come back to the client as they were", () => {
    expect(upstream.seen.map((r) => r.headers["x-api-key"])).toEqual([UPSTREAM_KEY, UPSTREAM_KEY]);
    const [agents, call] = answers;
    expect(agents.status).toBe(200);
    expect(agents.text).toContain(WEBHOOK_SECRET);
    expect(agents.headers.getSetCookie().join("\n")).toContain(COOKIE);
    expect(call.status).toBe(404);
    expect(call.text).toContain(UPSTREAM_KEY);
    expect(call.text).toContain(CLIENT_KEY);
    expect(call.headers.get("x-seen-key")).toBe(UPSTREAM_KEY);
  });

  it("are not in the recorded records nor the workspace's snapshot; the webhook secret reads [redacted]", async () => {
    const agents = JSON.parse(await control("/workspaces/rec/agents")) as any[];
    const agent = agents.find((a) => a.agentId === agentId);
    expect(agent, `recorded agents: ${agents.map((a) => a.agentId).join(", ")}`).toBeDefined();
    expect(agent.agentSettings.webhooks).toEqual([
      {
        webhookId: WEBHOOK_ID,
        name: "Upstream hook",
        url: "https://hooks.example.com/upstream",
        secret: REDACTED,
        events: ["conversation_started"],
      },
    ]);
    expect(secretsIn(JSON.stringify(agents))).toEqual([]);
    const snapshot = await control("/workspaces/rec/snapshot");
    expect(JSON.parse(snapshot).agents.map((a: { agentId: string }) => a.agentId)).toContain(agentId);
    expect(secretsIn(snapshot)).toEqual([]);
  });

  it("are not in the request journal", async () => {
    const journal = await control("/requests");
    const api = (JSON.parse(journal) as { path: string; operationId: string; source?: string }[]).filter((e) =>
      e.path.startsWith("/v1/"),
    );
    expect(api.map((e) => [e.operationId, e.source])).toEqual([
      ["getCall", "upstream"],
      ["listAgents", "upstream"],
    ]);
    expect(secretsIn(journal)).toEqual([]);
  });

  it("are not in the drift findings, whose exchanges show [redacted] in their place", async () => {
    const text = await control("/drift");
    const findings = JSON.parse(text) as any[];
    expect(findings.map((f) => `${f.operationId} ${f.rule} ${f.path}`).sort()).toEqual([
      "getCall error-body /path",
      "listAgents pagination /totalPages",
    ]);
    expect(secretsIn(text)).toEqual([]);
    const agents = findings.find((f) => f.operationId === "listAgents");
    expect(agents.exchange.request.headers["x-api-key"]).toBe(REDACTED);
    expect(agents.exchange.response.headers["set-cookie"]).toBe(REDACTED);
    const hook = agents.exchange.response.body.data
      .find((a: { agentId: string }) => a.agentId === agentId)
      .agentSettings.webhooks.find((w: { webhookId: string }) => w.webhookId === WEBHOOK_ID);
    expect(hook.secret).toBe(REDACTED);
    const call = findings.find((f) => f.operationId === "getCall");
    expect(call.exchange.response.body.message).toBe(
      `No call ${CALL} for key ${REDACTED} (the client once used ${REDACTED})`,
    );
    expect(call.exchange.response.headers["x-seen-key"]).toBe(REDACTED);
    expect(call.message).toContain(REDACTED);
  });

  it("are not in any console line", async () => {
    await control("/drift"); // the checks and their lines are done
    expect(lines.filter((l) => l.startsWith("drift ")).length).toBeGreaterThanOrEqual(2);
    expect(lines.filter((l) => l.includes('"operationId"')).length).toBeGreaterThanOrEqual(2);
    expect(lines.filter((l) => secretsIn(l).length > 0)).toEqual([]);
  });

  it.skipIf(!existsSync(driftCommand))("are not in the drift command's reports", async () => {
    const { driftMain } = (await import(driftCommand.href)) as {
      driftMain(
        argv: string[],
        env: NodeJS.ProcessEnv,
        io: { out(t: string): void; err(t: string): void },
      ): Promise<number>;
    };
    const dir = mkdtempSync(join(tmpdir(), "drift-secrets-"));
    try {
      const out: string[] = [];
      const code = await driftMain(
        [
          "--url",
          door.url,
          "--include-requests",
          "--json",
          join(dir, "drift.json"),
          "--html",
          join(dir, "drift.html"),
          "--junit",
          join(dir, "drift.xml"),
        ],
        {},
        { out: (t) => out.push(t), err: (t) => out.push(t) },
      );
      expect(code, out.join("\n")).toBe(1);
      expect(readdirSync(dir).sort()).toEqual(["drift.html", "drift.json", "drift.xml"]);
      for (const file of readdirSync(dir)) {
        const text = readFileSync(join(dir, file), "utf8");
        expect(text, file).toContain("listAgents");
        expect(secretsIn(text), file).toEqual([]);
      }
      expect(secretsIn(out.join("\n"))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * Secrets the door cannot know by value, only by the field that holds them: a finding's message quotes
 * values of the exchange (the value at its path, the items of a page), and must not quote those.
 */
describe("secrets held by secret fields, quoted in a finding's message", () => {
  const TOKEN = "tok-from-client-8181";
  const HOOK = "whsec-from-upstream-4545";
  let real: RunningMock;
  let upstream: OwnUpstream;
  let door: RunningMock;
  const lines: string[] = [];

  beforeAll(async () => {
    real = await startMock({ log: () => {} });
    const agents = copy((await realAnswer(real, "/v1/agents")).body);
    agents.data[0].agentSettings.webhooks = [
      {
        webhookId: WEBHOOK_ID,
        name: "h",
        url: "https://hooks.example.com/h",
        secret: HOOK,
        events: ["conversation_started"],
      },
    ];
    // The same agent twice on one page: a pagination finding.
    agents.data[1] = agents.data[0];
    const webhooks = copy((await realAnswer(real, "/v1/webhooks")).body);
    // A property the spec does not name, whose name says it holds a secret: a schema finding at level assumed.
    webhooks.data[0].signingSecret = HOOK;
    upstream = await startUpstream({
      "GET /v1/agents": { status: 200, body: agents },
      "GET /v1/webhooks": { status: 200, body: webhooks },
      [`POST /v1/integrations/${CALL}/auth`]: {
        status: 400,
        body: {
          ...(await realAnswer(real, `/v1/calls/${CALL}`)).body,
          status: 400,
          error: "Bad Request",
          path: `/v1/integrations/${CALL}/auth`,
        },
      },
    });
    door = await startMock({ upstream: upstream.url, log: (line) => lines.push(line) });
    const headers = { "X-API-Key": real.apiKey, "Content-Type": "application/json" };
    for (const path of ["/v1/agents", "/v1/webhooks"]) await (await fetch(`${door.url}${path}`, { headers })).text();
    // A bearer token with a field too many: the client's request breaks the contract.
    await (
      await fetch(`${door.url}/v1/integrations/${CALL}/auth`, {
        method: "POST",
        headers,
        body: JSON.stringify({ authType: "BEARER", token: TOKEN, note: "x" }),
      })
    ).text();
  });
  afterAll(async () => {
    await door?.close();
    await upstream?.close();
    await real?.close();
  });

  it("are not in the findings nor the console", async () => {
    const findings = (await (await fetch(`${door.url}/__mock/drift`)).json()) as any[];
    const kinds = findings.map((f) => `${f.operationId} ${f.where} ${f.rule} ${f.path}`);
    expect(kinds).toEqual(
      expect.arrayContaining([
        "listAgents response pagination /data",
        "listWebhooks response schema /data/0/signingSecret",
      ]),
    );
    expect(kinds.some((k) => k.startsWith("createIntegrationAuth request"))).toBe(true);
    const leaking = findings.filter((f) => JSON.stringify(f).includes(HOOK) || JSON.stringify(f).includes(TOKEN));
    expect(leaking.map((f) => `${f.operationId} ${f.where} ${f.rule} ${f.path}: ${f.message.slice(0, 160)}`)).toEqual(
      [],
    );
    expect(lines.filter((l) => l.includes(HOOK) || l.includes(TOKEN))).toEqual([]);
  });
});

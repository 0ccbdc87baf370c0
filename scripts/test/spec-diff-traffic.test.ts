/**
 * npm run spec:diff --traffic: the blast radius of a spec change over recorded traffic. Each case plants
 * changes in a copy of generated/openapi.json and records exchanges (HAR as the mock or a browser writes
 * it, or the journal's JSON) that the changes must hit, and others they must leave alone. The CLI cases
 * run scripts/spec-diff.ts as a child process with --base/--head files, as spec-diff.test.ts does.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningMock, startMock } from "../../mock-server/server.js";
import { blastRadius } from "../spec-diff/blast-radius.js";
import { compareDocuments } from "../spec-diff/compare.js";
import { matchTraffic } from "../spec-diff/traffic-match.js";
import { parseTraffic, TrafficFileError } from "../../conformance/recorded/traffic-file.js";
import { type BlastReport, buildReport } from "../spec-diff/traffic-report.js";
import { aspectOf, tokens } from "../spec-diff/traffic-values.js";
import { loadGenerated, repoRoot } from "./lib/openapi-doc.js";

// The documents are plain JSON: `any` keeps the plantings short.
type Doc = any;

const base: Doc = loadGenerated("openapi.json");
const schemas = (d: Doc): Doc => d.components.schemas;
const AGENT = "4f6a8c0e-2b1d-4e3f-9a5c-7d9e1b3f5a72";
const CALL = "7d9e1f3a-4b5c-4d6e-9f7a-8b9c0d1e2f3a";

function planted(...plants: ((d: Doc) => void)[]): Doc {
  const head = structuredClone(base);
  for (const plant of plants) plant(head);
  return head;
}

/** The two breaking changes of the main case: an enum value removed from CallStatus, a new required request field. */
const dropErrorStatus = (d: Doc) =>
  (schemas(d).CallStatus.enum = schemas(d).CallStatus.enum.filter((v: string) => v !== "error"));
const requireChannel = (d: Doc) => {
  schemas(d).ChatCreate.properties.channel = { type: "string" };
  schemas(d).ChatCreate.required.push("channel");
};

interface Recorded {
  method?: string;
  url: string;
  status?: number;
  request?: unknown;
  response?: unknown;
  requestHeaders?: Record<string, string>;
  responseHeaders?: Record<string, string>;
  /** Mock HAR entries carry `_workspaceId` and `_operationId`; a browser's do not. */
  workspace?: string | null;
  browser?: boolean;
}

const pairs = (h: Record<string, string>) => Object.entries(h).map(([name, value]) => ({ name, value }));

function har(entries: Recorded[]): unknown {
  return {
    log: {
      version: "1.2",
      creator: { name: "test", version: "1" },
      entries: entries.map((e) => ({
        startedDateTime: "2026-11-01T12:00:00.000Z",
        time: 3,
        request: {
          method: e.method ?? "GET",
          url: e.url,
          httpVersion: "HTTP/1.1",
          cookies: [],
          headers: pairs({
            "X-API-Key": "[redacted]",
            ...(e.request !== undefined ? { "Content-Type": "application/json" } : {}),
            ...e.requestHeaders,
          }),
          queryString: [],
          ...(e.request !== undefined
            ? { postData: { mimeType: "application/json", text: JSON.stringify(e.request) } }
            : {}),
          headersSize: -1,
          bodySize: -1,
        },
        response: {
          status: e.status ?? 200,
          statusText: "",
          httpVersion: "HTTP/1.1",
          cookies: [],
          headers: pairs({ "Content-Type": "application/json", ...e.responseHeaders }),
          content:
            e.response === undefined
              ? { size: 0, mimeType: "x-unknown" }
              : { size: 1, mimeType: "application/json", text: JSON.stringify(e.response) },
          redirectURL: "",
          headersSize: -1,
          bodySize: -1,
        },
        cache: {},
        timings: { send: 0, wait: 3, receive: 0 },
        ...(e.browser ? {} : { _workspaceId: e.workspace === undefined ? "ws_app" : e.workspace, _operationId: null }),
      })),
    },
  };
}

const callRecord = (status: string, extra: Record<string, unknown> = {}) => ({
  callId: CALL,
  status,
  recordingUrl: "https://cdn.example.com/r.mp3",
  ...extra,
});

/** The radius, reported, of `head` against base over the given files (name -> content). */
function radius(head: Doc, files: Record<string, unknown>): BlastReport {
  const result = compareDocuments(base, head);
  const read = Object.entries(files).map(([name, data]) => ({ name, ...parseTraffic(name, data) }));
  const exchanges = read.flatMap((r) => r.exchanges);
  const match = matchTraffic(base, exchanges);
  return buildReport(
    result,
    { base: "base", head: "head", spec: "spec/openapi.yaml" },
    {
      match,
      radius: blastRadius(base, head, result.changes, match),
      files: read.map((r) => ({ path: r.name, format: r.format, entries: r.exchanges.length })),
    },
  );
}

/** The hits of the change reported at `where`, alone or in the group of a shared component. */
function hitAt(report: BlastReport, where: string) {
  const found = report.changes.find((c) => c.where === where || c.alsoAt.includes(where));
  if (!found?.hits || found.where === where) return found?.hits;
  return { ...found.hits, count: found.hits.at.find((a) => a.where === where)?.count ?? 0 };
}

describe("blast radius: the planted case", () => {
  const head = planted(dropErrorStatus, requireChannel);
  const traffic = har([
    { url: "http://127.0.0.1:4010/v1/calls?status=error", workspace: "ws_dashboard", response: { data: [] } },
    { method: "POST", url: "http://127.0.0.1:4010/v1/chat", workspace: "ws_bot", request: { agentId: AGENT } },
    { url: "http://127.0.0.1:4010/v1/agents", workspace: "ws_dashboard", response: { data: [] } },
  ]);

  it("names the two exchanges the changes break, with count, consumer and example, and not the third", () => {
    const report = radius(head, { "app.har": traffic });
    expect(report.summary).toMatchObject({ breaking: 2, hitting: 2, untouched: 0 });
    expect(hitAt(report, "GET /v1/calls query parameter status")).toMatchObject({
      count: 1,
      consumers: [{ name: "ws_dashboard", count: 1 }],
      example: {
        method: "GET",
        url: "http://127.0.0.1:4010/v1/calls?status=error",
        status: 200,
        operationId: "listCalls",
        pointer: "query status",
        value: '"error"',
      },
    });
    expect(hitAt(report, "POST /v1/chat request body: channel")).toMatchObject({
      count: 1,
      consumers: [{ name: "ws_bot", count: 1 }],
      example: { method: "POST", operationId: "createChat", pointer: "request body (no channel)" },
    });
    const hitUrls = report.changes.flatMap((c) => (c.hits?.example ? [c.hits.example.url] : []));
    expect(hitUrls.some((u) => u.includes("/v1/agents"))).toBe(false);
    expect(report.traffic).toMatchObject({ exchanges: 3, matched: 3, unmatched: { count: 0 }, ignored: 0 });
  });

  it("judges values, not operations: another status value and a body that has the field are not hit", () => {
    const report = radius(head, {
      "app.har": har([
        { url: "http://127.0.0.1:4010/v1/calls?status=ended", response: { data: [] } },
        { url: "http://127.0.0.1:4010/v1/calls", response: { data: [callRecord("error")] } },
        { method: "POST", url: "http://127.0.0.1:4010/v1/chat", request: { agentId: AGENT, channel: "web" } },
      ]),
    });
    expect(report.summary).toMatchObject({ breaking: 2, hitting: 0, untouched: 2 });
    expect(report.untouched!.map((u) => u.where).sort()).toEqual([
      "GET /v1/calls query parameter status",
      "POST /v1/chat request body: channel",
    ]);
  });

  it("reads a browser's HAR: other hosts ignored, a base path in front, the file as the consumer", () => {
    const report = radius(head, {
      "staging.har": har([
        { browser: true, url: "https://staging.example.com/api/v1/calls?status=error&size=5", response: { data: [] } },
        { browser: true, url: "https://fonts.example.net/css2?family=Inter", response: "x" },
        { browser: true, method: "OPTIONS", url: "https://staging.example.com/api/v1/calls?status=error" },
        { browser: true, url: "https://staging.example.com/api/v1/reports", response: {} },
        { browser: true, url: "https://analytics.example.org/v1/collect", response: {} },
      ]),
    });
    expect(hitAt(report, "GET /v1/calls query parameter status")).toMatchObject({
      count: 1,
      consumers: [{ name: "staging.har", count: 1 }],
      example: { url: "https://staging.example.com/api/v1/calls?status=error&size=5" },
    });
    // /api/v1/reports is on the API's host: traffic the base spec does not know. The rest is not API traffic.
    expect(report.traffic).toMatchObject({
      matched: 1,
      unmatched: { count: 1, examples: [{ method: "GET", path: "/api/v1/reports", count: 1 }] },
      ignored: 3,
    });
  });
});

describe("blast radius per kind of change", () => {
  interface Case {
    plant: (d: Doc) => void;
    where: string;
    hit: Recorded[];
    miss: Recorded[];
    pointer?: string;
  }
  const cases: Record<string, Case> = {
    "an operation removed: every exchange of it": {
      plant: (d) => delete d.paths["/v1/qa-rules/{qaRuleId}"].delete,
      where: "DELETE /v1/qa-rules/{qaRuleId}",
      hit: [{ method: "DELETE", url: "http://h/v1/qa-rules/q1", status: 204 }],
      miss: [{ url: "http://h/v1/qa-rules/q1", response: {} }],
    },
    "a status code removed: the exchanges answered with it": {
      plant: (d) => delete d.paths["/v1/calls/{callId}"].get.responses["404"],
      where: "GET /v1/calls/{callId} 404 response",
      hit: [{ url: "http://h/v1/calls/nope", status: 404, response: { message: "not found" } }],
      miss: [{ url: `http://h/v1/calls/${CALL}`, response: callRecord("ended") }],
      pointer: "status 404",
    },
    "a response field removed: the answers holding it": {
      plant: (d) => {
        delete schemas(d).Call.properties.recordingUrl;
        schemas(d).Call.required = schemas(d).Call.required.filter((n: string) => n !== "recordingUrl");
      },
      where: "GET /v1/calls/{callId} 200 response: recordingUrl",
      hit: [{ url: `http://h/v1/calls/${CALL}`, response: callRecord("ended") }],
      miss: [
        { url: "http://h/v1/calls/nope", status: 404, response: { message: "not found" } },
        { url: `http://h/v1/calls/${CALL}`, response: { callId: CALL, status: "ended" } },
      ],
      pointer: "response body /recordingUrl",
    },
    "a response enum widened: the answers holding that field": {
      plant: (d) => schemas(d).Agent.properties.welcomeMessageType.enum.push("template"),
      where: "GET /v1/agents 200 response: data[].welcomeMessageType",
      hit: [{ url: "http://h/v1/agents", response: { data: [{ agentId: AGENT, welcomeMessageType: "static" }] } }],
      miss: [{ url: "http://h/v1/agents", response: { data: [] } }],
      pointer: "response body /data/0/welcomeMessageType",
    },
    "a request enum value removed: only the bodies carrying it": {
      plant: (d) => (schemas(d).ApiKeyAuthCreate.properties.apiKey.properties.position.enum = ["header"]),
      where: "POST /v1/integrations/{integrationId}/auth request body: oneOf[ApiKeyAuthCreate].apiKey.position",
      hit: [
        {
          method: "POST",
          url: "http://h/v1/integrations/i1/auth",
          request: { authType: "API_KEY", apiKey: { key: "k", value: "v", position: "query" } },
        },
      ],
      miss: [
        {
          method: "POST",
          url: "http://h/v1/integrations/i1/auth",
          request: { authType: "API_KEY", apiKey: { key: "k", value: "v", position: "header" } },
        },
        { method: "POST", url: "http://h/v1/integrations/i1/auth", request: { authType: "NONE" } },
      ],
      pointer: "request body /apiKey/position",
    },
    "a request variant removed: the bodies of that variant": {
      plant: (d) =>
        (schemas(d).IntegrationAuthCreate.oneOf = schemas(d).IntegrationAuthCreate.oneOf.filter(
          (b: Doc) => !b.$ref.endsWith("/NoneAuthCreate"),
        )),
      where: "POST /v1/integrations/{integrationId}/auth request body: oneOf[NoneAuthCreate]",
      hit: [{ method: "POST", url: "http://h/v1/integrations/i1/auth", request: { authType: "NONE" } }],
      miss: [
        { method: "POST", url: "http://h/v1/integrations/i1/auth", request: { authType: "BEARER", token: "t0k" } },
      ],
    },
    "a request bound lowered: only the values beyond it": {
      plant: (d) => (schemas(d).ChatCreate.properties.conversation.maxLength = 10),
      where: "POST /v1/chat request body: conversation",
      hit: [{ method: "POST", url: "http://h/v1/chat", request: { agentId: AGENT, conversation: "a".repeat(11) } }],
      miss: [
        { method: "POST", url: "http://h/v1/chat", request: { agentId: AGENT, conversation: "short" } },
        { method: "POST", url: "http://h/v1/chat", request: { agentId: AGENT } },
      ],
      pointer: "request body /conversation",
    },
    "a query bound lowered: the text is read as the integer it stands for": {
      plant: (d) => (d.components.parameters.Size.schema.maximum = 20),
      where: "GET /v1/agents query parameter size",
      hit: [{ url: "http://h/v1/agents?size=50", response: { data: [] } }],
      miss: [
        { url: "http://h/v1/agents?size=20", response: { data: [] } },
        { url: "http://h/v1/agents", response: { data: [] } },
      ],
      pointer: "query size",
    },
    "a request field removed: the bodies carrying it": {
      plant: (d) => delete schemas(d).ChatCreate.properties.variables,
      where: "POST /v1/chat request body: variables",
      hit: [{ method: "POST", url: "http://h/v1/chat", request: { agentId: AGENT, variables: { name: "Dana" } } }],
      miss: [{ method: "POST", url: "http://h/v1/chat", request: { agentId: AGENT } }],
      pointer: "request body /variables",
    },
    "a security scheme changed: every exchange that uses it": {
      plant: (d) => (d.components.securitySchemes.ApiKeyAuth.name = "Authorization"),
      where: "components.securitySchemes.ApiKeyAuth",
      hit: [{ url: "http://h/v1/agents", response: { data: [] } }],
      miss: [],
    },
  };

  it.each(Object.entries(cases))("%s", (_name, c) => {
    const hit = c.hit.map((r) => ({ ...r, workspace: "ws_hit" }));
    const miss = c.miss.map((r) => ({ ...r, workspace: "ws_miss" }));
    const report = radius(planted(c.plant), { "t.har": har([...miss, ...hit]) });
    const hits = hitAt(report, c.where);
    expect(hits, `no breaking change at ${c.where}: ${report.changes.map((x) => x.where).join("; ")}`).toBeDefined();
    expect(hits!.count).toBe(hit.length);
    expect(hits!.consumers.map((x) => x.name)).toEqual(["ws_hit"]);
    if (c.pointer) expect(hits!.example?.pointer).toBe(c.pointer);
  });

  it("never prints a secret: credentials in the example's value and URL are redacted", () => {
    const report = radius(
      planted((d) => (schemas(d).BearerAuthCreate.properties.token.maxLength = 4)),
      {
        "t.har": har([
          {
            method: "POST",
            url: "http://h/v1/integrations/i1/auth?api_key=sk_live_abcdef123456",
            request: { authType: "BEARER", token: "sk_live_abcdef123456" },
          },
        ]),
      },
    );
    const hits = hitAt(
      report,
      "POST /v1/integrations/{integrationId}/auth request body: oneOf[BearerAuthCreate].token",
    );
    expect(hits?.count).toBe(1);
    expect(JSON.stringify(report)).not.toContain("sk_live_abcdef123456");
    expect(hits!.example!.value).toBe('"[redacted]"');
  });

  it("reads the journal's JSON: status and query checks apply, body changes stay undecided", () => {
    const head = planted(
      (d) => delete d.paths["/v1/calls/{callId}"].get.responses["404"],
      (d) => {
        delete schemas(d).Call.properties.recordingUrl;
        schemas(d).Call.required = schemas(d).Call.required.filter((n: string) => n !== "recordingUrl");
      },
      dropErrorStatus,
    );
    const entry = (path: string, status: number, query = "", workspaceId: string | null = "ws_qa") => ({
      id: "1",
      at: "2026-11-01T12:00:00.000Z",
      method: "GET",
      path,
      query,
      operationId: null,
      workspaceId,
      status,
      durationMs: 1,
      faultId: null,
    });
    const report = radius(head, {
      "journal.json": [
        entry("/v1/calls/nope", 404),
        entry(`/v1/calls/${CALL}`, 200),
        entry("/v1/calls", 200, "status=error", null),
        entry("/__mock/requests", 200),
      ],
    });
    expect(hitAt(report, "GET /v1/calls/{callId} 404 response")).toMatchObject({
      count: 1,
      consumers: [{ name: "ws_qa", count: 1 }],
      example: { url: "/v1/calls/nope", status: 404 },
    });
    expect(hitAt(report, "GET /v1/calls query parameter status")).toMatchObject({
      count: 1,
      consumers: [{ name: "journal.json", count: 1 }],
    });
    const removed = report.untouched!.find((u) => u.where === "GET /v1/calls 200 response: data[].recordingUrl");
    expect(removed?.undecided).toBe(2);
    expect(report.traffic).toMatchObject({ matched: 3, ignored: 1, withoutBodies: 3 });
  });

  it("refuses a file that is neither HAR nor the journal", () => {
    expect(() => parseTraffic("x.json", { hello: "world" })).toThrow(TrafficFileError);
    expect(() => parseTraffic("x.json", [{ url: "/v1/calls" }])).toThrow(/^x\.json: item 0 is not a journal entry/);
  });

  it("reads field paths and messages as schema-diff.ts writes them", () => {
    expect(tokens("data[].oneOf[kind=a.b].apiKey.variables{}")).toEqual([
      { kind: "prop", name: "data" },
      { kind: "items" },
      { kind: "variant", keyword: "oneOf", label: "kind=a.b" },
      { kind: "prop", name: "apiKey" },
      { kind: "prop", name: "variables" },
      { kind: "values" },
    ]);
    expect(aspectOf("enum value 'error' removed")).toBe("values");
    expect(aspectOf("const 'BEARER' -> 'TOKEN'")).toBe("values");
    expect(aspectOf("no longer nullable")).toBe("nullable");
    expect(aspectOf("type integer -> integer|string")).toBe("type");
    expect(aspectOf("maxLength 100000 -> 1000")).toEqual({ keyword: "maxLength" });
    expect(aspectOf("pattern '^a' added")).toEqual({ keyword: "pattern" });
    expect(aspectOf("additionalProperties: false added (unknown fields are rejected)")).toBe("closed");
    expect(aspectOf("variant removed")).toBe("variants");
    expect(aspectOf("default 1 -> 2")).toBeUndefined();
  });
});

describe("blast radius over a HAR the mock exports (GET /__mock/requests.har)", () => {
  let mock: RunningMock;
  beforeAll(async () => {
    mock = await startMock({ host: "127.0.0.1", port: 0, log: () => undefined });
  });
  afterAll(async () => {
    await mock?.close();
  });

  it("hits the two exchanges the changes break, per workspace, and leaves the third alone", async () => {
    const json = { "Content-Type": "application/json" };
    const created = await fetch(`${mock.url}/__mock/workspaces`, { method: "POST", headers: json, body: "{}" });
    const dashboard = (await created.json()) as { workspaceId: string; apiKey: string };
    const own = { "X-API-Key": mock.apiKey, ...json };
    const agents = (await (await fetch(`${mock.url}/v1/agents`, { headers: own })).json()) as {
      data: { agentId: string }[];
    };
    const listed = await fetch(`${mock.url}/v1/calls?status=error`, { headers: { "X-API-Key": dashboard.apiKey } });
    const chat = await fetch(`${mock.url}/v1/chat`, {
      method: "POST",
      headers: own,
      body: JSON.stringify({ agentId: agents.data[0].agentId, conversation: "Can I move my appointment?" }),
    });
    expect([listed.status, chat.status]).toEqual([200, 200]);
    const exported = await fetch(`${mock.url}/__mock/requests.har`);
    expect(exported.status).toBe(200);

    const report = radius(planted(dropErrorStatus, requireChannel), { "mock.har": await exported.json() });
    expect(report.traffic).toMatchObject({ exchanges: 3, matched: 3, unmatched: { count: 0 } });
    const status = hitAt(report, "GET /v1/calls query parameter status");
    expect(status).toMatchObject({ count: 1, consumers: [{ name: dashboard.workspaceId, count: 1 }] });
    expect(status!.example).toMatchObject({ operationId: "listCalls", pointer: "query status", value: '"error"' });
    const channel = hitAt(report, "POST /v1/chat request body: channel");
    expect(channel).toMatchObject({ count: 1, example: { method: "POST", pointer: "request body (no channel)" } });
    expect(channel!.consumers).toHaveLength(1);
    expect(channel!.consumers[0].name).not.toBe(dashboard.workspaceId);
    expect(report.summary).toMatchObject({ breaking: 2, hitting: 2 });
    const text = JSON.stringify(report);
    expect(text).not.toContain(mock.apiKey);
    expect(text).not.toContain(dashboard.apiKey);
  });
});

describe("npm run spec:diff --traffic", () => {
  const TIMEOUT = 120_000;
  const run = promisify(execFile);
  let dir: string;
  const file = (name: string) => path.join(dir, name);
  const cli = async (...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> => {
    try {
      const { stdout, stderr } = await run(
        path.join(repoRoot, "node_modules", ".bin", "tsx"),
        [
          path.join(repoRoot, "scripts", "spec-diff.ts"),
          "--base",
          file("base.json"),
          "--head",
          file("head.json"),
          ...args,
        ],
        { cwd: dir },
      );
      return { code: 0, stdout, stderr };
    } catch (error) {
      const e = error as { code?: number; stdout?: string; stderr?: string };
      return { code: typeof e.code === "number" ? e.code : -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
    }
  };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "spec-diff-traffic-"));
    await writeFile(file("base.json"), JSON.stringify(base));
    await writeFile(file("head.json"), JSON.stringify(planted(dropErrorStatus, requireChannel)));
    await writeFile(
      file("app.har"),
      JSON.stringify(
        har([
          { url: "http://127.0.0.1:4010/v1/calls?status=error", workspace: "ws_<b>dash</b>", response: { data: [] } },
          { method: "POST", url: "http://127.0.0.1:4010/v1/chat", workspace: "ws_bot", request: { agentId: AGENT } },
          { url: "http://127.0.0.1:4010/v1/agents", workspace: "ws_bot", response: { data: [] } },
        ]),
      ),
    );
    await writeFile(file("safe.har"), JSON.stringify(har([{ url: "http://127.0.0.1:4010/v1/agents", response: {} }])));
    await writeFile(file("broken.har"), "{ not json");
    await writeFile(file("other.json"), JSON.stringify({ openapi: "3.1.0" }));
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it(
    "exits 1 when a breaking change hits recorded traffic, and writes the JSON and HTML reports",
    async () => {
      const result = await cli(
        "--traffic",
        file("app.har"),
        file("safe.har"),
        "--json",
        file("r.json"),
        "--html",
        file("r.html"),
      );
      expect(result.stdout).toContain("Breaking changes hit by recorded traffic (2):");
      expect(result.stdout).toContain(
        'e.g. GET http://127.0.0.1:4010/v1/calls?status=error -> 200, query status = "error" [listCalls]',
      );
      expect(result.stderr).toContain("2 breaking change(s) hit recorded traffic");
      expect(result.code).toBe(1);
      const json = JSON.parse(await readFile(file("r.json"), "utf8")) as BlastReport;
      expect(json.summary).toMatchObject({ breaking: 2, hitting: 2, untouched: 0 });
      expect(json.traffic).toMatchObject({ exchanges: 4, matched: 4 });
      expect(json.traffic!.files.map((f) => path.basename(f.path))).toEqual(["app.har", "safe.har"]);
      const html = await readFile(file("r.html"), "utf8");
      expect(html).toMatch(/^<!doctype html>/);
      expect(html).toContain("BREAKS TRAFFIC");
      expect(html).toContain("ws_&lt;b&gt;dash&lt;/b&gt;");
      expect(html).not.toContain("<b>dash");
      expect(html).not.toMatch(/<script|<link|src=/);
    },
    TIMEOUT,
  );

  it(
    "exits 0 when the traffic avoids every breaking change, listing them as untouched; --allow-breaking forces 0",
    async () => {
      const safe = await cli("--traffic", file("safe.har"));
      expect(safe.stdout).toContain("Breaking changes no recorded exchange touches (2):");
      expect(safe.stdout).toContain("  - GET /v1/calls query parameter status: enum value 'error' removed");
      expect(safe.stderr).toContain("none hit by recorded traffic");
      expect(safe.code).toBe(0);
      const allowed = await cli("--traffic", file("app.har"), "--allow-breaking");
      expect(allowed.code).toBe(0);
    },
    TIMEOUT,
  );

  it(
    "exits 2 with one line for a traffic file it cannot read",
    async () => {
      const broken = await cli("--traffic", file("broken.har"));
      expect(broken.code).toBe(2);
      expect(broken.stderr.trim()).toBe(
        `spec:diff: ${file("broken.har")}: not JSON (neither a HAR file nor the journal's JSON)`,
      );
      const other = await cli("--traffic", file("other.json"));
      expect(other.code).toBe(2);
      expect(other.stderr.trim().split("\n")).toHaveLength(1);
      expect(other.stderr.trim()).toMatch(
        /^spec:diff: \S+other\.json: neither a HAR 1\.2 file \(log\.entries\) nor the journal's JSON/,
      );
      const missing = await cli("--traffic", file("missing.har"));
      expect(missing.stderr.trim()).toBe(`spec:diff: ${file("missing.har")}: cannot be read`);
      expect(missing.code).toBe(2);
    },
    TIMEOUT,
  );
});

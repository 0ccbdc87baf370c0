/**
 * agent-platform-mock drift against a node:http server standing in for the mock: planted findings in,
 * exit codes for each --fail-on case out, and the suite's reports written from them (JUnit one testcase
 * per kind and well-formed, HTML self-contained, JSON with the findings). What cannot run exits 2 with
 * one line: bad flags, a /v1 or /__mock URL, an unreachable mock, a server that is not the kit's mock.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { KIT_NAME } from "../../../mock-server/core/defaults.js";
import { driftMain } from "../command.js";
import type { DriftFinding } from "../finding.js";

const { JSDOM } = createRequire(import.meta.url)("jsdom") as {
  JSDOM: new (text: string, options: { contentType: string }) => { window: { document: Document } };
};

function parseXml(xml: string): Document {
  const doc = new JSDOM(xml, { contentType: "text/xml" }).window.document;
  expect(doc.getElementsByTagName("parsererror").length).toBe(0);
  return doc;
}

let seq = 0;
function finding(over: Partial<DriftFinding> = {}): DriftFinding {
  seq++;
  return {
    id: `drift_${seq}`,
    at: `2026-11-01T12:00:${String(seq % 60).padStart(2, "0")}.000Z`,
    operationId: "listCalls",
    workspaceId: "default",
    rule: "status",
    level: "documented",
    where: "response",
    path: "#status",
    message: "listCalls answered 418, a status its reference does not document",
    exchange: {
      request: {
        method: "GET",
        url: "http://127.0.0.1:4010/v1/calls?page=0&size=2",
        headers: { "x-api-key": "[redacted]", accept: "application/json", host: "127.0.0.1:4010" },
      },
      response: {
        status: 418,
        headers: { "content-type": "application/json" },
        body: { status: 418, error: "I'm a teapot", message: "short and stout", path: "/v1/calls" },
      },
    },
    ...over,
  };
}

const DOCUMENTED_RESPONSE = [
  finding(),
  finding({ message: "listCalls answered 418, a status its reference does not document (again)" }),
];
const ASSUMED_RESPONSE = [
  finding({
    rule: "pagination",
    level: "assumed",
    path: "/totalPages",
    message: "totalPages disagrees with totalCount and size",
    exchange: {
      request: { method: "GET", url: "/v1/calls?size=2", headers: {} },
      response: { status: 200, headers: { "content-type": "application/json" }, body: { totalPages: 9, data: [] } },
    },
  }),
];
const DOCUMENTED_REQUEST = [
  finding({
    operationId: "createAgent",
    rule: "required",
    where: "request",
    path: "/name",
    message: "the client sent an agent without its required name",
    exchange: {
      request: {
        method: "POST",
        url: "http://127.0.0.1:4010/v1/agents",
        headers: { "content-type": "application/json", "x-api-key": "[redacted]" },
        body: { language: "en" },
      },
      response: { status: 400, headers: { "content-type": "application/json" }, body: { status: 400 } },
    },
  }),
];
const ALL = [...DOCUMENTED_RESPONSE, ...ASSUMED_RESPONSE, ...DOCUMENTED_REQUEST];

/** What the stand-in answers: the findings (or another body), and /__mock/health's identity. */
const state: { drift: { status: number; body: unknown }; kit: string; seen: IncomingMessage[] } = {
  drift: { status: 200, body: [] },
  kit: KIT_NAME,
  seen: [],
};

let server: Server;
let url: string;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "drift-command-"));
  server = createServer((req, res) => {
    state.seen.push(req);
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const [status, body] =
      path === "/__mock/drift"
        ? [state.drift.status, state.drift.body]
        : path === "/__mock/health"
          ? [200, { status: "ok", kit: state.kit, version: "0.1.0" }]
          : [404, { status: 404, error: "Not Found", message: `no route for ${path}`, path }];
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  state.drift = { status: 200, body: ALL };
  state.kit = KIT_NAME;
  state.seen = [];
});

async function drift(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await driftMain(argv, {}, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

const file = (name: string) => join(dir, name);

describe("exit codes by --fail-on", () => {
  it("documented (the default): documented response findings fail", async () => {
    expect((await drift("--url", url)).code).toBe(1);
    expect((await drift("--url", url, "--fail-on", "documented")).code).toBe(1);
  });

  it("an assumed response finding fails only at --fail-on assumed", async () => {
    state.drift.body = ASSUMED_RESPONSE;
    const documented = await drift("--url", url);
    expect(documented.code).toBe(0);
    expect(documented.out).toMatch(/^PASS/m);
    expect(documented.out).toMatch(/not counted: assumed/);
    expect((await drift("--url", url, "--fail-on", "assumed")).code).toBe(1);
  });

  it("a request finding fails only with --include-requests, at either level", async () => {
    state.drift.body = DOCUMENTED_REQUEST;
    expect((await drift("--url", url)).code).toBe(0);
    expect((await drift("--url", url, "--fail-on", "assumed")).code).toBe(0);
    expect((await drift("--url", url, "--include-requests")).code).toBe(1);
    expect((await drift("--url", url, "--fail-on", "assumed", "--include-requests")).code).toBe(1);
  });

  it("an assumed request finding needs both --fail-on assumed and --include-requests", async () => {
    state.drift.body = [{ ...DOCUMENTED_REQUEST[0], level: "assumed" }];
    expect((await drift("--url", url, "--include-requests")).code).toBe(0);
    expect((await drift("--url", url, "--fail-on", "assumed")).code).toBe(0);
    expect((await drift("--url", url, "--fail-on", "assumed", "--include-requests")).code).toBe(1);
  });

  it("no findings: 0, and the summary says when the list is empty", async () => {
    state.drift.body = [];
    const result = await drift("--url", url, "--fail-on", "assumed", "--include-requests");
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/without --upstream/);
  });
});

describe("the console summary", () => {
  it("has one line per kind, grouped by operation, with its count, level and one example", async () => {
    const { out } = await drift("--url", url);
    const lines = out.split("\n");
    expect(lines[0]).toMatch(/4 findings of 3 kinds/);
    expect(lines).toContain("  createAgent");
    expect(lines).toContain("  listCalls");
    const status = lines.filter((l) => /response status \[documented\]/.test(l));
    expect(status).toHaveLength(1);
    expect(status[0]).toMatch(/✗ .* 2× +e\.g\. listCalls answered 418/);
    expect(out).toMatch(/· response pagination \[assumed\] +1×/);
    expect(out).toMatch(/· request required \[documented\] .*not counted: a request finding/);
    expect(lines.at(-1)).toMatch(/^FAIL: 2 findings of 1 kind count/);
  });
});

describe("the reports", () => {
  it("JUnit: well-formed, one testcase per kind, a failure for each counted kind", async () => {
    const result = await drift("--url", url, "--junit", file("drift.xml"));
    expect(result.code).toBe(1);
    const doc = parseXml(readFileSync(file("drift.xml"), "utf8"));
    const cases = Array.from(doc.getElementsByTagName("testcase"));
    expect(cases.map((c) => c.getAttribute("name")).sort()).toEqual([
      "createAgent.request.required [documented]",
      "listCalls.response.pagination [assumed]",
      "listCalls.response.status [documented]",
    ]);
    const failures = Array.from(doc.getElementsByTagName("failure"));
    expect(failures).toHaveLength(1);
    const text = failures[0].textContent ?? "";
    expect(failures[0].getAttribute("message")).toMatch(/listCalls answered 418.*\(\+1 more\)/);
    expect(text).toMatch(/pointer: +#status/);
    expect(text).toMatch(/actual: +response at #status: 418/);
    expect(text).toMatch(/exchange: GET http:\/\/127\.0\.0\.1:4010\/v1\/calls\?page=0&size=2 -> 418 application\/json/);
    expect(text).toContain(
      `repro:    curl -sS -i -X GET 'http://127.0.0.1:4010/v1/calls?page=0&size=2' -H "x-api-key: $API_KEY"`,
    );
    expect(text).not.toMatch(/host:/i);
    expect(doc.getElementsByTagName("skipped")).toHaveLength(2);
  });

  it("JUnit at --fail-on assumed --include-requests: every kind fails", async () => {
    await drift("--url", url, "--fail-on", "assumed", "--include-requests", "--junit", file("all.xml"));
    const doc = parseXml(readFileSync(file("all.xml"), "utf8"));
    expect(doc.getElementsByTagName("testcase")).toHaveLength(3);
    expect(doc.getElementsByTagName("failure")).toHaveLength(3);
    const request = Array.from(doc.getElementsByTagName("failure")).find((f) =>
      /required name/.test(f.textContent ?? ""),
    );
    expect(request?.textContent).toContain('--data-raw \'{"language":"en"}\'');
    expect(request?.textContent).toMatch(/request at \/name: \(absent\)/);
  });

  it("HTML: self-contained, with the finding's message, escaped", async () => {
    state.drift.body = [...ALL, finding({ rule: "body", message: "answered <b>HTML</b> where JSON is documented" })];
    expect((await drift("--url", url, "--html", file("drift.html"))).code).toBe(1);
    const html = readFileSync(file("drift.html"), "utf8");
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/(src|href)=["']?(https?:)?\/\//i);
    expect(html).not.toMatch(/<script|<link|@import|url\(/i);
    expect(html).toContain("listCalls answered 418, a status its reference does not document");
    expect(html).toContain("answered &lt;b&gt;HTML&lt;/b&gt; where JSON is documented");
    expect(html).not.toContain("<b>HTML</b>");
    // The kinds that do not count are said, not hidden.
    expect(html).toContain("the client sent an agent without its required name");
  });

  it("JSON: the suite's report with the findings, as served, and the kinds", async () => {
    const served = [
      ...ALL.slice(0, -1),
      {
        ...ALL.at(-1),
        note: "a field this command does not know",
        exchange: { request: { method: "post", url: "/v1/agents", headers: { "Content-Type": "application/json" } } },
      },
    ];
    state.drift.body = served;
    expect((await drift("--url", url, "--json", file("drift.json"))).code).toBe(1);
    const report = JSON.parse(readFileSync(file("drift.json"), "utf8"));
    expect(report.summary).toMatchObject({ verdict: "fail", failed: 1, skipped: 2, total: 3 });
    expect(report.environment).toBeNull();
    expect(report.findings).toEqual(served);
    expect(report.drift).toMatchObject({ failOn: "documented", includeRequests: false, findings: 4, counted: 2 });
    expect(report.drift.kinds.map((k: { id: string }) => k.id)).toEqual([
      "createAgent.request.required",
      "listCalls.response.pagination",
      "listCalls.response.status",
    ]);
    expect(report.results).toHaveLength(3);
  });

  it("JSON: a run with nothing counted passes", async () => {
    state.drift.body = ASSUMED_RESPONSE;
    expect((await drift("--url", url, "--json", file("pass.json"))).code).toBe(0);
    const report = JSON.parse(readFileSync(file("pass.json"), "utf8"));
    expect(report.summary.verdict).toBe("pass");
    expect(report.findings).toHaveLength(1);
  });
});

describe("the request to the mock", () => {
  it("passes the filters and the credentials given", async () => {
    await drift(
      "--url",
      `${url}/`,
      "--workspace",
      "w1",
      "--operation",
      "listCalls",
      "--api-key",
      "k1",
      "--control-token",
      "t1",
    );
    const req = state.seen.find((r) => r.url?.startsWith("/__mock/drift"))!;
    expect(new URL(req.url!, "http://x").searchParams.toString()).toBe("workspaceId=w1&operationId=listCalls");
    expect(req.headers["x-api-key"]).toBe("k1");
    expect(req.headers.authorization).toBe("Bearer t1");
  });

  it("takes the control token from MOCK_CONTROL_TOKEN", async () => {
    await driftMain(["--url", url], { MOCK_CONTROL_TOKEN: "t2" }, { out: () => {}, err: () => {} });
    expect(state.seen.find((r) => r.url === "/__mock/drift")?.headers.authorization).toBe("Bearer t2");
  });
});

describe("cannot run: exit 2 with one line", () => {
  const oneLine = (result: { code: number; out: string; err: string }) => {
    expect(result.code).toBe(2);
    expect(result.out).toBe("");
    expect(result.err.split("\n")).toHaveLength(1);
    expect(result.err).toMatch(/^agent-platform-mock drift: /);
    return result.err;
  };

  it("an unreachable mock", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const err = oneLine(await drift("--url", `http://127.0.0.1:${port}`, "--junit", file("unreachable.xml")));
    expect(err).toMatch(/unreachable/);
    // CI reads the JUnit file: it says why there are no results.
    const doc = parseXml(readFileSync(file("unreachable.xml"), "utf8"));
    expect(doc.getElementsByTagName("error")[0].getAttribute("message")).toMatch(/unreachable/);
  });

  it("a URL ending in /v1 or /__mock", async () => {
    expect(oneLine(await drift("--url", `${url}/v1`))).toContain(`give its base URL: ${url}`);
    expect(oneLine(await drift("--url", `${url}/v1/`))).toContain("(/v1)");
    expect(oneLine(await drift("--url", `${url}/__mock`))).toContain("(/__mock)");
    expect(oneLine(await drift("--url", `${url}/api/__mock/drift`))).toContain(`give its base URL: ${url}/api`);
    expect(state.seen).toHaveLength(0);
  });

  it("bad flags", async () => {
    expect(oneLine(await drift("--url", url, "--fail-on", "strict"))).toMatch(
      /--fail-on must be documented or assumed/,
    );
    expect(oneLine(await drift("--url", url, "--level", "assumed"))).toMatch(/bad flags/);
    expect(oneLine(await drift("--url", url, "extra"))).toMatch(/bad flags/);
    expect(oneLine(await drift())).toMatch(/no --url/);
    expect(oneLine(await drift("--url", "ftp://x"))).toMatch(/not an http\(s\) URL/);
    expect(state.seen).toHaveLength(0);
  });

  it("a server that is not the kit's mock", async () => {
    state.drift = { status: 404, body: { message: "nope" } };
    state.kit = "something-else";
    expect(oneLine(await drift("--url", url))).toMatch(/is not the kit's mock: GET \/__mock\/drift answered 404/);
    state.drift = { status: 200, body: { data: [] } };
    expect(oneLine(await drift("--url", url))).toMatch(/not a JSON array/);
    state.drift = { status: 200, body: [{ ...ALL[0], level: "strict" }] };
    expect(oneLine(await drift("--url", url))).toMatch(/item 0 has level "strict"/);
  });

  it("the mock refusing, or answering an error", async () => {
    state.drift = { status: 401, body: { status: 401, message: "a control token is needed" } };
    expect(oneLine(await drift("--url", url))).toMatch(
      /refused .* 401 \(a control token is needed\): pass --control-token/,
    );
    state.drift = { status: 400, body: { status: 400, message: "limit must be at most 1000" } };
    expect(oneLine(await drift("--url", url))).toMatch(
      /answered GET \/__mock\/drift with 400: limit must be at most 1000/,
    );
  });

  it("a report file that cannot be written", async () => {
    expect(oneLine(await drift("--url", url, "--html", join(dir, "missing", "x.html")))).toMatch(
      /--html .* cannot be written \(ENOENT\)/,
    );
  });
});

it("--help prints the usage", async () => {
  const result = await drift("--help");
  expect(result.code).toBe(0);
  expect(result.out).toMatch(/^usage: agent-platform-mock drift --url URL/);
  for (const flag of ["--junit", "--html", "--json", "--fail-on", "--include-requests", "--api-key"])
    expect(result.out).toContain(flag);
});

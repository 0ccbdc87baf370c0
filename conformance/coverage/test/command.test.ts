/**
 * agent-platform-mock coverage against a real mock started in-process: a planted consumer (a workspace)
 * that reads the first and a middle page of calls, one call, a page of agents, and sends two invalid
 * requests, but never sees an empty page of calls nor a call's 404. Those must be listed as never
 * received, with how to provoke them, from the mock (--url) and offline from the same traffic saved as
 * a HAR (built here, as a browser's devtools would save it) or as the journal's JSON. --fail-under
 * above the percent exits 1; what cannot run exits 2 with one line.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMock, type RunningMock } from "../../../mock-server/server.js";
import { coverageMain } from "../command.js";

const { JSDOM } = createRequire(import.meta.url)("jsdom") as {
  JSDOM: new (text: string, options: { contentType: string }) => { window: { document: Document } };
};

function parseXml(xml: string): Document {
  const doc = new JSDOM(xml, { contentType: "text/xml" }).window.document;
  expect(doc.getElementsByTagName("parsererror").length).toBe(0);
  return doc;
}

let mock: RunningMock;
let dir: string;
let workspaceId: string;
let apiKey: string;
/** The consumer's traffic as a browser's devtools would save it, with a few entries that are not the API's. */
let harFile: string;
let journalFile: string;

const file = (name: string) => join(dir, name);

/** One exchange of the consumer, kept as a HAR entry. */
async function send(entries: unknown[], method: string, path: string, body?: unknown) {
  const response = await fetch(`${mock.url}${path}`, {
    method,
    headers: { "X-API-Key": apiKey, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const url = new URL(`${mock.url}${path}`);
  entries.push({
    startedDateTime: new Date().toISOString(),
    time: 1,
    request: {
      method,
      url: url.toString(),
      httpVersion: "HTTP/1.1",
      cookies: [],
      headers: [{ name: "X-API-Key", value: "[redacted]" }],
      queryString: [...url.searchParams].map(([name, value]) => ({ name, value })),
      headersSize: -1,
      bodySize: -1,
    },
    response: {
      status: response.status,
      statusText: response.statusText,
      httpVersion: "HTTP/1.1",
      cookies: [],
      headers: [],
      content: { size: text.length, mimeType: response.headers.get("content-type") ?? "", text },
      redirectURL: "",
      headersSize: -1,
      bodySize: text.length,
    },
    cache: {},
    timings: { send: 0, wait: 1, receive: 0 },
    _workspaceId: workspaceId,
  });
  return text.length > 0 && response.headers.get("content-type")?.includes("json") ? JSON.parse(text) : undefined;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "coverage-command-"));
  mock = await startMock({ port: 0, host: "127.0.0.1", seed: 3, log: () => {} });
  const created = await fetch(`${mock.url}/__mock/workspaces`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ seed: 11 }),
  });
  ({ workspaceId, apiKey } = (await created.json()) as { workspaceId: string; apiKey: string });
  const entries: unknown[] = [];
  const first = await send(entries, "GET", "/v1/calls?page=0&size=1");
  expect(first.hasNext, "the seeded workspace has three calls or more").toBe(true);
  await send(entries, "GET", "/v1/calls?page=1&size=1");
  await send(entries, "GET", `/v1/calls/${encodeURIComponent(first.data[0].callId)}`);
  await send(entries, "GET", "/v1/agents?page=0&size=1");
  await send(entries, "POST", "/v1/chat", {});
  await send(entries, "GET", "/v1/calls?status=finished");
  const other = (url: string, status: number) => ({
    ...(entries[0] as object),
    request: { method: "GET", url, headers: [], queryString: [] },
    response: { status, content: { mimeType: "text/plain", text: "x" } },
    _workspaceId: undefined,
  });
  // What a browser saves beside the API: the app's own files, the control plane, an aborted request.
  entries.push(other("https://cdn.example.test/app.js", 200), other(`${mock.url}/__mock/health`, 200), {
    ...other(`${mock.url}/v1/calls/xyz`, 0),
    _workspaceId: workspaceId,
  });
  harFile = file("consumer.har");
  writeFileSync(harFile, JSON.stringify({ log: { version: "1.2", creator: { name: "test", version: "1" }, entries } }));
  const journal = await fetch(`${mock.url}/__mock/requests?workspaceId=${workspaceId}`);
  journalFile = file("journal.json");
  writeFileSync(journalFile, await journal.text());
});

afterAll(async () => {
  await mock?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function coverage(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await coverageMain(argv, {}, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

/** The console's unseen lines of one operation: `kind value` of each. */
function unseenOf(out: string, operationId: string): string[] {
  const lines = out.split("\n");
  const start = lines.findIndex((l) => l.startsWith(`  ${operationId}  `));
  if (start === -1) return [];
  const own: string[] = [];
  for (const line of lines.slice(start + 1)) {
    const m = /^ {4}✗ (\S+ \S+)/.exec(line);
    if (!m) break;
    own.push(m[1]);
  }
  return own;
}

const percentOf = (out: string) => Number(/: (\d+) % \(/.exec(out)?.[1]);

describe("from the mock (--url)", () => {
  it("lists the variants the consumer never received, with how to provoke them", async () => {
    const result = await coverage("--url", mock.url, "--workspace", workspaceId);
    expect(result.err).toBe("");
    expect(result.code).toBe(0);
    expect(result.out.split("\n")[0]).toMatch(
      new RegExp(
        `^Coverage of workspace ${workspaceId}, .*GET /__mock/coverage\\?workspaceId=.*: \\d+ % \\(\\d+ of \\d+ variants received\\)$`,
      ),
    );
    expect(unseenOf(result.out, "listCalls")).toContain("page empty");
    expect(unseenOf(result.out, "listCalls")).not.toContain("page first");
    expect(unseenOf(result.out, "listCalls")).not.toContain("page middle");
    expect(unseenOf(result.out, "listCalls")).not.toContain("status 400");
    expect(unseenOf(result.out, "getCall")).toContain("status 404");
    expect(unseenOf(result.out, "getCall")).not.toContain("status 200");
    expect(unseenOf(result.out, "createChat")).not.toContain("status 400");
    expect(result.out).toMatch(/✗ page empty +Ask for a page past the end/);
    expect(result.out).toMatch(/✗ status 404 +Name what does not exist \(e\.g\. a callId that names no call/);
    expect(result.out).toMatch(/^PASS: \d+ % is at or above --fail-under 0$/m);
  });

  it("exits 1 below --fail-under and 0 at it", async () => {
    const percent = percentOf((await coverage("--url", mock.url, "--workspace", workspaceId)).out);
    expect(percent).toBeGreaterThan(0);
    expect(percent).toBeLessThan(100);
    const below = await coverage("--url", mock.url, "--workspace", workspaceId, "--fail-under", String(percent + 1));
    expect(below.code).toBe(1);
    expect(below.out).toMatch(new RegExp(`^FAIL: ${percent} % is below --fail-under ${percent + 1}$`, "m"));
    expect((await coverage("--url", mock.url, "--workspace", workspaceId, "--fail-under", String(percent))).code).toBe(
      0,
    );
  });

  it("--json writes what the endpoint returned", async () => {
    expect((await coverage("--url", mock.url, "--workspace", workspaceId, "--json", file("url.json"))).code).toBe(0);
    const written = JSON.parse(readFileSync(file("url.json"), "utf8"));
    const served = await (await fetch(`${mock.url}/__mock/coverage?workspaceId=${workspaceId}`)).json();
    expect(written).toEqual(served);
    expect(written.workspaceId).toBe(workspaceId);
  });

  it("without --workspace reads the default workspace's", async () => {
    const result = await coverage("--url", mock.url);
    expect(result.out).toMatch(/^Coverage of workspace \S+, \S+ \(GET \/__mock\/coverage\): /);
    // The consumer's traffic was its own workspace's, not the default's.
    expect(unseenOf(result.out, "listCalls")).toContain("page first");
  });

  it("JUnit: one testcase per variant, a failure carrying the howTo for each never received", async () => {
    expect((await coverage("--url", mock.url, "--workspace", workspaceId, "--junit", file("url.xml"))).code).toBe(0);
    const served = await (await fetch(`${mock.url}/__mock/coverage?workspaceId=${workspaceId}`)).json();
    const doc = parseXml(readFileSync(file("url.xml"), "utf8"));
    const cases = Array.from(doc.getElementsByTagName("testcase"));
    expect(cases).toHaveLength(served.variants.length);
    const failures = Array.from(doc.getElementsByTagName("failure"));
    expect(failures).toHaveLength(served.variants.filter((v: { seen: boolean }) => !v.seen).length);
    const empty = cases.find(
      (c) => c.getAttribute("classname") === "coverage.listCalls" && c.getAttribute("name") === "page empty",
    );
    expect(empty?.getElementsByTagName("failure")[0].getAttribute("message")).toMatch(
      /^not received: Ask for a page past the end/,
    );
    const first = cases.find(
      (c) => c.getAttribute("name") === "page first" && /listCalls/.test(c.getAttribute("classname")!),
    );
    expect(first?.childNodes.length).toBe(0);
    expect(readFileSync(file("url.xml"), "utf8")).not.toContain(apiKey);
  });

  it("HTML: self-contained, escaped, every operation and what is missing", async () => {
    expect((await coverage("--url", mock.url, "--workspace", workspaceId, "--html", file("url.html"))).code).toBe(0);
    const html = readFileSync(file("url.html"), "utf8");
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/(src|href)=["']?(https?:)?\/\//i);
    expect(html).not.toMatch(/<script|<link|@import|url\(/i);
    expect(html).toContain("phoneNumber.provider=&lt;carrier_a&gt;");
    expect(html).not.toContain("<carrier_a>");
    expect(html).toContain('id="op-getCall"');
    expect(html).toContain("Name what does not exist (e.g. a callId that names no call of the workspace)");
    expect(html).not.toContain(apiKey);
  });
});

describe("offline (--from)", () => {
  it("a HAR: the same variants as the mock counted, webhooks left out and said so", async () => {
    const offline = await coverage("--from", harFile, "--json", file("har.json"));
    expect(offline.err).toBe("");
    expect(offline.out.split("\n")[0]).toMatch(
      new RegExp(
        `^Coverage of workspace ${workspaceId}, .*consumer\\.har \\(HAR, 6 of 9 entries are answers of the API\\)`,
      ),
    );
    expect(offline.out).toMatch(/note: webhook deliveries cannot be judged offline: 2 webhook variants/);
    expect(offline.out).toMatch(/note: left out: 2 not requests to the API's operations, 1 that got no answer/);
    expect(unseenOf(offline.out, "listCalls")).toContain("page empty");
    expect(unseenOf(offline.out, "getCall")).toContain("status 404");
    const report = JSON.parse(readFileSync(file("har.json"), "utf8"));
    const served = await (await fetch(`${mock.url}/__mock/coverage?workspaceId=${workspaceId}`)).json();
    type Variant = { operationId: string; kind: string; value: string; seen: boolean };
    const seenKeys = (variants: Variant[]) =>
      variants.filter((v) => v.seen && v.kind !== "webhook").map((v) => `${v.operationId} ${v.kind} ${v.value}`);
    expect(seenKeys(report.variants)).toEqual(seenKeys(served.variants));
    expect(report.variants.some((v: Variant) => v.kind === "webhook")).toBe(false);
    expect(report.notJudged.map((v: Variant) => v.kind)).toEqual(["webhook", "webhook"]);
    expect(report.percent).toBe(Math.floor((100 * seenKeys(report.variants).length) / report.variants.length));
    expect(percentOf(offline.out)).toBe(report.percent);
  });

  it("a HAR: --fail-under above the percent exits 1", async () => {
    const percent = percentOf((await coverage("--from", harFile)).out);
    expect((await coverage("--from", harFile, "--fail-under", String(percent + 1))).code).toBe(1);
    expect((await coverage("--from", harFile, "--fail-under", String(percent))).code).toBe(0);
  });

  it("a HAR: --workspace and --host select entries", async () => {
    const other = await coverage("--from", harFile, "--workspace", "someone-else");
    expect(other.out).toMatch(/: 0 % \(0 of \d+ variants received\)/);
    expect(other.out).toMatch(/7 of another workspace than someone-else/);
    const host = new URL(mock.url).host;
    expect(percentOf((await coverage("--from", harFile, "--host", host)).out)).toBe(
      percentOf((await coverage("--from", harFile)).out),
    );
    const elsewhere = await coverage("--from", harFile, "--host", "staging.example.test");
    expect(elsewhere.out).toMatch(/7 sent to another host than staging\.example\.test/);
    expect(percentOf(elsewhere.out)).toBe(0);
  });

  it("the journal's JSON: statuses only, and says so", async () => {
    const result = await coverage(
      "--from",
      journalFile,
      "--json",
      file("journal-report.json"),
      "--junit",
      file("journal.xml"),
    );
    expect(result.out).toMatch(/note: the journal holds no bodies: only status variants are judged/);
    expect(unseenOf(result.out, "getCall")).toEqual(expect.arrayContaining(["status 404"]));
    expect(unseenOf(result.out, "getCall")).not.toContain("status 200");
    expect(unseenOf(result.out, "listCalls")).not.toContain("status 400");
    expect(result.out).not.toMatch(/✗ page /);
    const report = JSON.parse(readFileSync(file("journal-report.json"), "utf8"));
    expect(new Set(report.variants.map((v: { kind: string }) => v.kind))).toEqual(new Set(["status"]));
    expect(
      report.notJudged.some((v: { kind: string; value: string }) => v.kind === "page" && v.value === "empty"),
    ).toBe(true);
    // JUnit: what could not be judged is skipped, not failed.
    const doc = parseXml(readFileSync(file("journal.xml"), "utf8"));
    expect(doc.getElementsByTagName("skipped").length).toBe(report.notJudged.length);
    expect(doc.getElementsByTagName("testcase").length).toBe(report.variants.length + report.notJudged.length);
  });
});

describe("cannot run: exit 2 with one line", () => {
  const oneLine = (result: { code: number; out: string; err: string }) => {
    expect(result.code).toBe(2);
    expect(result.out).toBe("");
    expect(result.err.split("\n")).toHaveLength(1);
    expect(result.err).toMatch(/^agent-platform-mock coverage: /);
    return result.err;
  };

  it("bad flags", async () => {
    expect(oneLine(await coverage())).toMatch(/no --url .* and no --from FILE/);
    expect(oneLine(await coverage("--url", mock.url, "--from", harFile))).toMatch(/--url or --from, not both/);
    expect(oneLine(await coverage("--url", mock.url, "--fail-under", "150"))).toMatch(/--fail-under must be a percent/);
    expect(oneLine(await coverage("--url", mock.url, "--fail-under", "lots"))).toMatch(
      /--fail-under must be a percent/,
    );
    expect(oneLine(await coverage("--url", mock.url, "--host", "x"))).toMatch(/--host .* goes with --from/);
    expect(oneLine(await coverage("--url", mock.url, "--level", "x"))).toMatch(/bad flags/);
    expect(oneLine(await coverage("--url", `${mock.url}/v1`))).toContain(`give its base URL: ${mock.url}`);
  });

  it("an unreachable mock, with the JUnit file saying why", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(oneLine(await coverage("--url", `http://127.0.0.1:${port}`, "--junit", file("down.xml")))).toMatch(
      /unreachable/,
    );
    const doc = parseXml(readFileSync(file("down.xml"), "utf8"));
    expect(doc.getElementsByTagName("error")[0].getAttribute("message")).toMatch(/unreachable/);
  });

  it("a workspace the mock does not have", async () => {
    expect(oneLine(await coverage("--url", mock.url, "--workspace", "no-such-workspace"))).toMatch(
      /the mock answered GET \/__mock\/coverage\?workspaceId=no-such-workspace with 404/,
    );
  });

  it("a server that is not the kit's mock", async () => {
    const server = createServer((req, res) => {
      const body = req.url?.startsWith("/__mock/coverage") ? { coverage: "high" } : { status: "ok", kit: "another" };
      res.writeHead(req.url?.startsWith("/__mock/health") ? 200 : 200, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      expect(oneLine(await coverage("--url", url))).toMatch(
        /not the kit's mock, or not a version .*: it has no workspaceId/,
      );
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("a file that is missing, not JSON, or not traffic", async () => {
    expect(oneLine(await coverage("--from", file("missing.har")))).toMatch(/cannot be read \(ENOENT\)/);
    writeFileSync(file("notes.txt"), "hello");
    expect(oneLine(await coverage("--from", file("notes.txt")))).toMatch(
      /is not traffic this command reads: it is not JSON/,
    );
    writeFileSync(file("object.json"), JSON.stringify({ data: [] }));
    expect(oneLine(await coverage("--from", file("object.json")))).toMatch(
      /neither a HAR 1\.2 .* nor the journal's JSON array/,
    );
    writeFileSync(file("numbers.json"), JSON.stringify([1, 2]));
    expect(oneLine(await coverage("--from", file("numbers.json")))).toMatch(/item 0 is not a journal entry/);
  });

  it("a report file that cannot be written", async () => {
    expect(oneLine(await coverage("--from", harFile, "--html", join(dir, "missing", "x.html")))).toMatch(
      /--html .* cannot be written \(ENOENT\)/,
    );
  });
});

it("--help prints the usage", async () => {
  const result = await coverage("--help");
  expect(result.code).toBe(0);
  expect(result.out).toMatch(/^usage: agent-platform-mock coverage --url URL/);
  for (const flag of ["--from", "--workspace", "--fail-under", "--junit", "--html", "--json", "--host"])
    expect(result.out).toContain(flag);
});

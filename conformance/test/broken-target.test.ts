/**
 * A deliberately broken target: a proxy in front of the mock that corrupts some responses. The suite
 * must fail, naming the rules that catch each fault, with a pointer and a curl line that hides the key.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../cli.js";
import { baselineFile } from "../report/baseline.js";
import { hasMock, json, NO_MOCK, silentIo, startKitMock, startProxy, type Rewrite, type Running } from "./support.js";

const faults: Rewrite = (req, res) => {
  if (req.method === "GET" && req.path === "/v1/calls" && res.status === 200)
    return json((b) => void (b.totalPages += 1))(res);
  if (req.method === "GET" && req.path.startsWith("/v1/integrations/") && res.status === 200)
    return json((b) => void delete b.tools)(res);
  if (req.method === "POST" && req.path === "/v1/chat" && res.status === 200)
    return { ...json(() => {})(res), status: 201 };
  if (req.path.startsWith("/v1/qa-rules/") && res.status === 404)
    return { status: 404, headers: { "content-type": "text/plain" }, body: "Not Found" };
  if (req.method === "GET" && req.path === "/v1/webhooks" && res.status === 200)
    return json((b) => void (b.hasNext = false))(res);
  if (req.method === "GET" && req.path === "/v1/phone-number" && res.status === 200)
    return json((b) => {
      b.totalCount = b.totalCounts;
      delete b.totalCounts;
    })(res);
  if (req.path === "/v1/agents" && res.status === 401) return json((b) => void (b.path = "/"))(res);
  // E9 refuses an unsupported type with 400 instead of 415 (a multipart request to reproduce).
  if (req.path === "/v1/knowledge-bases" && res.status === 415)
    return { ...json((b) => Object.assign(b, { status: 400, error: "Bad Request" }))(res), status: 400 };
  return undefined;
};

// fault -> [rule that must fail, pointer it must report]
const expected: [string, string][] = [
  ["listCalls.total-pages", "/totalPages"],
  ["createIntegration.created", "/tools"],
  ["createChat.completion", "#status"],
  ["getQaRule.unknown-id", "#header/content-type"],
  ["listWebhooks.total-pages", "/hasNext"],
  ["listPhoneNumbers.total-counts-name", "/totalCounts"],
  ["listAgents.auth", "/path"],
];

describe.skipIf(!hasMock)(`suite against a broken target${hasMock ? "" : ` (skipped: ${NO_MOCK})`}`, () => {
  let mock: Running;
  let proxy: Awaited<ReturnType<typeof startProxy>>;
  beforeAll(async () => {
    mock = await startKitMock();
    proxy = await startProxy(mock.url, faults);
  });
  afterAll(async () => {
    await proxy?.close();
    await mock?.close();
  });

  it("fails with the rules that catch each fault, reproducibly", async () => {
    const out: string[] = [];
    const { code, run } = await main(
      ["--base-url", proxy.url, "--api-key", mock.apiKey, "--level", "assumed"],
      {},
      { out: (t) => out.push(t), err: () => {} },
    );
    expect(code).toBe(1);
    const failed = new Map(run!.results.filter((r) => r.outcome === "failed").map((r) => [r.id, r]));
    for (const [rule, pointer] of expected) {
      expect(failed.has(rule), `${rule} should fail`).toBe(true);
      expect(failed.get(rule)!.failures.map((f) => f.pointer)).toContain(pointer);
    }
    const failures = [...failed.values()].flatMap((r) => r.failures);
    expect(failures.every((f) => /(^|&& )curl -sS -i -X /.test(f.curl ?? ""))).toBe(true);
    // The run's keys are never printed: failures carry $API_KEY instead.
    const keys = new Set(proxy.seen.map((r) => r.key).filter((k): k is string => !!k));
    expect(keys.size).toBeGreaterThan(0);
    for (const key of keys) expect(out.join("\n")).not.toContain(key);
    // Double quotes: the shell puts the key in from $API_KEY.
    expect(out.join("\n")).toContain('-H "X-API-Key: $API_KEY"');
  });

  it("prints repro lines that bash runs to the same failing answer, uploads included", async () => {
    proxy.seen.length = 0;
    const { run } = await main(
      [
        "--base-url",
        proxy.url,
        "--api-key",
        mock.apiKey,
        "--level",
        "assumed",
        "--only",
        "/getQaRule.unknown-id|createChat.completion|unsupported-type/",
      ],
      {},
      silentIo,
    );
    const failures = run!.results.flatMap((r) => r.failures);
    const picks = [
      failures.find((f) => f.rule === "getQaRule.unknown-id" && f.pointer === "#header/content-type"),
      failures.find((f) => f.rule === "createChat.completion" && f.pointer === "#status"),
      failures.find((f) => f.rule.startsWith("createKnowledgeBase.unsupported-type") && f.pointer === "#status"),
    ];
    for (const failure of picks) {
      expect(failure, "each fault shows as a failure").toBeDefined();
      // The rules ran with the key of the run's own workspace, the one the proxy saw most: $API_KEY holds it.
      const counts = new Map<string, number>();
      for (const r of proxy.seen) if (r.key) counts.set(r.key, (counts.get(r.key) ?? 0) + 1);
      const key = [...counts].sort((a, b) => b[1] - a[1])[0][0];
      // Asynchronously: the proxy and the mock answer from this very process.
      const result = await promisify(execFile)("bash", ["-c", failure!.curl!], {
        env: { ...process.env, API_KEY: key },
        encoding: "utf8",
        timeout: 20_000,
      });
      const statusLine = result.stdout.split("\r\n")[0];
      if (failure!.rule === "getQaRule.unknown-id") expect(result.stdout).toMatch(/content-type: text\/plain/i);
      if (failure!.rule === "createChat.completion") expect(statusLine).toMatch(/^HTTP\/1\.1 201/);
      if (failure!.rule.startsWith("createKnowledgeBase")) {
        expect(failure!.curl).toMatch(
          /^d=\$\(mktemp -d\) && printf %s '[A-Za-z0-9+/=]+' \| base64 -d > "\$d\/\d+" && /,
        );
        expect(statusLine).toMatch(/^HTTP\/1\.1 400/);
      }
    }
  });

  it("--baseline makes known failures pass and names stale entries; --html writes the page", async () => {
    const dir = mkdtempSync(join(tmpdir(), "conformance-baseline-"));
    const argv = [
      "--base-url",
      proxy.url,
      "--api-key",
      mock.apiKey,
      "--level",
      "assumed",
      "--only",
      "/listCalls.total-pages|listPhoneNumbers.total-counts-name|getCall.unknown-id/",
      "--quiet",
    ];
    const first = await main([...argv, "--html", join(dir, "report.html")], {}, silentIo);
    expect(first.code).toBe(1);
    expect(readFileSync(join(dir, "report.html"), "utf8")).toMatch(/FAIL/);
    const known = JSON.parse(baselineFile(first.run!));
    known.knownFailures.push({ rule: "getCall.unknown-id", note: "fixed since" });
    writeFileSync(join(dir, "baseline.json"), JSON.stringify(known));
    const second = await main([...argv, "--baseline", join(dir, "baseline.json")], {}, silentIo);
    expect(second.code).toBe(0);
    expect(second.run!.results.filter((r) => r.outcome === "failed").every((r) => r.known)).toBe(true);
    expect(second.run!.staleBaseline?.join("\n")).toMatch(/getCall\.unknown-id/);
    // A broken baseline file is a setup mistake.
    writeFileSync(join(dir, "bad.json"), "{");
    expect((await main([...argv, "--baseline", join(dir, "bad.json")], {}, silentIo)).code).toBe(2);
  });
});

/**
 * Oversized bodies, on the real process so its memory can be read alone: a 100 MB upload to E9 is
 * answered 413 (2.2 body) at the 25 MB limit, without the client having to send the rest, and the
 * mock's resident memory stays flat; a JSON body over 1 MB (sent so, or inflating to it) gets 413 the
 * same way, and a text field over 1 MB gets 400 at the limit.
 * The memory bound is a generous sanity bound (a buffered upload would cost 100 MB), not a benchmark.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JSON_LIMIT_BYTES } from "../../mock/pipeline.js";
import { expectErrorBody } from "../harness.js";
import { spawnMock, type MockProcess } from "../process.js";

const MB = 1024 * 1024;
let mock: MockProcess;
beforeAll(async () => void (mock = await spawnMock(["--clock", "virtual"])));
afterAll(async () => void (await mock?.stop()));

const status = (pid: number, field: string) =>
  Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? NaN) * 1024;

/** Peak resident memory of `pid` while `work` runs: the kernel's high-water mark, reset first where allowed, plus samples. */
async function peakRss<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; before: number; peak: number }> {
  let resetPeak = false;
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    resetPeak = true;
  } catch {
    /* not allowed here: the samples below still see a buffered upload, which would stay for a while */
  }
  const before = status(pid, "VmRSS");
  let sampled = before;
  const timer = setInterval(() => (sampled = Math.max(sampled, status(pid, "VmRSS"))), 10);
  try {
    const result = await work();
    return { result, before, peak: Math.max(sampled, status(pid, "VmRSS"), resetPeak ? status(pid, "VmHWM") : 0) };
  } finally {
    clearInterval(timer);
  }
}

interface Streamed {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** Bytes the client had written when the answer came. */
  sentWhenAnswered: number;
}

/** Streams `head`, then `total` bytes of "a", then `tail`, with backpressure; stops sending once answered. */
function streamUpload(
  path: string,
  headers: Record<string, string>,
  head: string,
  total: number,
  tail: string,
): Promise<Streamed> {
  return new Promise((resolve, reject) => {
    const chunk = Buffer.alloc(64 * 1024, "a");
    let sent = 0;
    let answered = false;
    const req = request(mock.url + path, { method: "POST", headers: { "X-API-Key": mock.apiKey, ...headers } });
    req.on("response", (res) => {
      answered = true;
      const sentWhenAnswered = sent;
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c) => (body += c));
      res.on("end", () => {
        req.destroy();
        resolve({ status: res.statusCode!, headers: res.headers, body, sentWhenAnswered });
      });
    });
    req.on("error", (e) => !answered && reject(e));
    req.write(head);
    const pump = () => {
      while (!answered && sent < total) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once("drain", pump);
      }
      if (!answered) req.end(tail);
    };
    pump();
  });
}

const BOUNDARY = "uploadboundary";
const filePart = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="name"\r\n\r\nbig\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="knowledge_base_files"; filename="big.txt"\r\nContent-Type: text/plain\r\n\r\n`;

describe("oversized bodies", () => {
  it("cuts a 100 MB upload to E9 off at 25 MB with 413, and memory stays flat", async () => {
    await fetch(`${mock.url}/v1/calls`, { headers: { "X-API-Key": mock.apiKey } });
    const { result, before, peak } = await peakRss(mock.child.pid!, () =>
      streamUpload(
        "/v1/knowledge-bases",
        { "Content-Type": `multipart/form-data; boundary=${BOUNDARY}` },
        filePart,
        100 * MB,
        `\r\n--${BOUNDARY}--\r\n`,
      ),
    );
    expect(result.status).toBe(413);
    expectErrorBody(JSON.parse(result.body), 413, "/v1/knowledge-bases");
    expect(result.headers.connection).toBe("close");
    // Answered at the limit, not after the whole body: the client still had most of it to send.
    expect(result.sentWhenAnswered).toBeGreaterThan(25 * MB);
    expect(result.sentWhenAnswered).toBeLessThan(60 * MB);
    console.log(
      `E9 100 MB upload: answered after ${(result.sentWhenAnswered / MB).toFixed(1)} MB sent; mock RSS ${(before / MB).toFixed(0)} MB -> peak ${(peak / MB).toFixed(0)} MB`,
    );
    expect(peak - before).toBeLessThan(64 * MB);

    const kbs = await (await fetch(`${mock.url}/__mock/workspaces/default/knowledgeBases`)).json();
    expect(kbs.map((k: { name: string }) => k.name)).not.toContain("big");
    expect((await fetch(`${mock.url}/v1/calls`, { headers: { "X-API-Key": mock.apiKey } })).status).toBe(200);
  });

  it("answers a 100 MB text field of E9 with 400 at the 1 MB field limit", async () => {
    const fieldPart = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="knowledge_base_texts"\r\n\r\n`;
    const { result, before, peak } = await peakRss(mock.child.pid!, () =>
      streamUpload(
        "/v1/knowledge-bases",
        { "Content-Type": `multipart/form-data; boundary=${BOUNDARY}` },
        fieldPart,
        100 * MB,
        `\r\n--${BOUNDARY}--\r\n`,
      ),
    );
    expect(result.status).toBe(400);
    expectErrorBody(JSON.parse(result.body), 400, "/v1/knowledge-bases");
    expect(result.sentWhenAnswered).toBeLessThan(50 * MB);
    expect(peak - before).toBeLessThan(64 * MB);
  });

  it("answers a compressed JSON body that inflates past 1 MB with 413", async () => {
    const bomb = gzipSync(Buffer.concat([Buffer.from('{"name":"'), Buffer.alloc(200 * MB, "a"), Buffer.from('"}')]));
    expect(bomb.length).toBeLessThan(JSON_LIMIT_BYTES);
    const { result, before, peak } = await peakRss(mock.child.pid!, async () => {
      const res = await fetch(`${mock.url}/v1/integrations`, {
        method: "POST",
        headers: { "X-API-Key": mock.apiKey, "Content-Type": "application/json", "Content-Encoding": "gzip" },
        body: bomb,
      });
      return { status: res.status, body: await res.json() };
    });
    expect(result.status).toBe(413);
    expectErrorBody(result.body, 413, "/v1/integrations");
    expect(peak - before).toBeLessThan(64 * MB);
  });

  it("answers a 100 MB chunked JSON body with 413 at the 1 MB limit", async () => {
    const { result, before, peak } = await peakRss(mock.child.pid!, () =>
      streamUpload("/v1/integrations", { "Content-Type": "application/json" }, '{"name":"', 100 * MB, '"}'),
    );
    expect(result.status).toBe(413);
    expectErrorBody(JSON.parse(result.body), 413, "/v1/integrations");
    expect(result.headers.connection).toBe("close");
    expect(result.sentWhenAnswered).toBeLessThan(50 * MB);
    expect(peak - before).toBeLessThan(64 * MB);
  });

  it("answers a refused upload (bad key, wrong type) at once and closes, without reading the rest", async () => {
    const badKey = await streamUpload(
      "/v1/knowledge-bases",
      { "X-API-Key": "wrong-key", "Content-Type": `multipart/form-data; boundary=${BOUNDARY}` },
      filePart,
      100 * MB,
      "",
    );
    expect(badKey.status).toBe(401);
    expectErrorBody(JSON.parse(badKey.body), 401, "/v1/knowledge-bases");
    const wrongType = await streamUpload("/v1/integrations", { "Content-Type": "text/plain" }, "", 100 * MB, "");
    expect(wrongType.status).toBe(400);
    for (const refused of [badKey, wrongType]) {
      expect(refused.headers.connection).toBe("close");
      expect(refused.sentWhenAnswered).toBeLessThan(50 * MB);
    }
  });

  it("answers a JSON body declared over 1 MB with 413 at once, and one of exactly 1 MB is read", async () => {
    const over = await fetch(`${mock.url}/v1/integrations`, {
      method: "POST",
      headers: { "X-API-Key": mock.apiKey, "Content-Type": "application/json" },
      body: JSON.stringify({ name: "n".repeat(JSON_LIMIT_BYTES) }),
    });
    expect(over.status).toBe(413);
    expectErrorBody(await over.json(), 413, "/v1/integrations");

    const exact = `{"name":"${"n".repeat(JSON_LIMIT_BYTES - 11)}"}`;
    expect(Buffer.byteLength(exact)).toBe(JSON_LIMIT_BYTES);
    const atLimit = await fetch(`${mock.url}/v1/integrations`, {
      method: "POST",
      headers: { "X-API-Key": mock.apiKey, "Content-Type": "application/json" },
      body: exact,
    });
    // Parsed and judged on its content (a name over 255 characters), not refused for its size.
    expect(atLimit.status).toBe(400);
    expect((await atLimit.json()).validationErrors).toHaveProperty("name");
  });
});

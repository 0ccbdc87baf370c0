/**
 * Regression tests for what `npm run fuzz` found in the mock; each case is the shrunk counterexample
 * (or its essence), sent the way the fuzzer sent it.
 */
import { describe, expect, it } from "vitest";
import { expectErrorBody, useMock } from "../../../mock-server/test/harness.js";
import { encodeForm } from "../../fuzz/multipart.js";
import { sendWire, type WireRequest } from "../../fuzz/wire.js";

const t = useMock();

const send = (req: Partial<WireRequest>) =>
  sendWire(t.url, t.mock.apiKey, { method: "GET", target: "/v1/agents", headers: [], key: "valid", ...req });
const raw = (bytes: string) => send({ raw: bytes });
const json = (text: string) => JSON.parse(text);

describe("failures Node's parser meets before Express carry the 2.2 body", () => {
  it("headers over 16 KB: 431 with the error body and the request path", async () => {
    const res = await send({ target: "/v1/qa-rules/a", method: "DELETE", headers: [["X-Pad", "p".repeat(17_000)]] });
    expect(res.status).toBe(431);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expectErrorBody(json(res.text), 431, "/v1/qa-rules/a");
  });

  it("a request line over 16 KB: 431, the path kept when it was read whole", async () => {
    const res = await send({ target: `/v1/knowledge-bases?page=${"%C3%A9".repeat(10_000)}`, method: "POST" });
    expect(res.status).toBe(431);
    expectErrorBody(json(res.text), 431, "/v1/knowledge-bases");
  });

  it.each([
    ["a NUL in a header value", "GET /v1/agents HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0000b\r\nConnection: close\r\n\r\n"],
    [
      "a bad chunk size",
      "POST /v1/integrations HTTP/1.1\r\nHost: x\r\nX-API-Key: $KEY\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
    ],
    ["an HTTP/2 preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"],
  ])("malformed HTTP (%s): 400 with the error body", async (_why, bytes) => {
    const res = await raw(bytes);
    expect(res.status).toBe(400);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(json(res.text)).toMatchObject({ status: 400, error: "Bad Request" });
  });

  it("HTTP/1.1 without Host: 400 with the error body (Node answered a bare 400)", async () => {
    const res = await raw("GET /v1/agents HTTP/1.1\r\nX-API-Key: $KEY\r\nConnection: close\r\n\r\n");
    expect(res.status).toBe(400);
    expectErrorBody(json(res.text), 400, "/v1/agents");
  });

  it("HTTP/1.0 needs no Host", async () => {
    const res = await raw("GET /v1/agents HTTP/1.0\r\nX-API-Key: $KEY\r\n\r\n");
    expect(res.status).toBe(200);
  });
});

describe("E9 forms the fuzzer broke", () => {
  const BOUNDARY = "fuzzBoundary7MA4YWxkTrZu0gW";
  const postForm = (body: Uint8Array) =>
    send({
      method: "POST",
      target: "/v1/knowledge-bases",
      headers: [["Content-Type", `multipart/form-data; boundary=${BOUNDARY}`]],
      body,
    });

  it("a form cut short inside a file answers 400 and the mock keeps serving (it used to crash the process)", async () => {
    const full = encodeForm(
      [
        { name: "name", content: "a" },
        { name: "knowledge_base_files", filename: "faq.txt", content: "Opening hours are 9 to 5." },
      ],
      BOUNDARY,
    );
    // Cut inside the file's content: busboy then errors the open file stream, which nothing listened to.
    const res = await postForm(full.subarray(0, Buffer.from(full).indexOf("hours are")));
    expect(res.status).toBe(400);
    expectErrorBody(json(res.text), 400, "/v1/knowledge-bases");
    expect((await send({})).status).toBe(200);
  });

  it("a text part under knowledge_base_files is refused, not silently dropped (400)", async () => {
    const res = await postForm(
      encodeForm(
        [
          { name: "name", content: "a" },
          { name: "knowledge_base_files", filename: "", content: "x" },
        ],
        BOUNDARY,
      ),
    );
    expect(res.status).toBe(400);
    expect(json(res.text).validationErrors).toHaveProperty("knowledge_base_files");
  });

  it("an empty nameless file part, what a browser sends for an empty file input, is no source", async () => {
    const res = await postForm(
      encodeForm(
        [
          { name: "name", content: "a" },
          { name: "knowledge_base_files", filename: "", type: "application/octet-stream", content: "" },
        ],
        BOUNDARY,
      ),
    );
    expect(res.status).toBe(201);
    expect(json(res.text).files).toEqual([]);
  });
});

describe("numbers JSON can write but not carry back", () => {
  it("1e400 (Infinity once parsed) in chat variables is refused, not stored and served as null", async () => {
    const agents = await (await t.raw("/v1/agents")).json();
    const res = await send({
      method: "POST",
      target: "/v1/chat",
      headers: [["Content-Type", "application/json"]],
      body: `{"agentId":"${agents.data[0].agentId}","variables":{"__proto__":1e400,"b":-1e400}}`,
    });
    expect(res.status).toBe(400);
    expect(Object.keys(json(res.text).validationErrors ?? {}).join()).toMatch(/variables/);
  });

  it.each(["size=Infinity", "size=1e400", "page=-Infinity"])(
    "%s in a query is refused (400), not coerced into a page of Infinity (500)",
    async (query) => {
      const res = await send({ target: `/v1/test-runs?${query}` });
      expect(res.status).toBe(400);
      expectErrorBody(json(res.text), 400, "/v1/test-runs");
    },
  );
});

/**
 * Clients that stall: a body or headers sent too slowly are answered 408 with the 2.2 body once the
 * request timeout passes and the connection is closed, while other clients are served meanwhile.
 * Malformed HTTP gets the 2.2 body too. The timeout is short here (--request-timeout in `npm start`).
 */
import { connect, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { expectErrorBody, useMock } from "../harness.js";

const REQUEST_TIMEOUT_MS = 1500;
const t = useMock({ requestTimeoutMs: REQUEST_TIMEOUT_MS });

interface RawExchange {
  socket: Socket;
  /** Everything the server sent, once it closed the connection. */
  closed: Promise<string>;
  received(): string;
}

/** A raw TCP client: `head` is sent at once, then `trickle` one byte every 100 ms until closed. */
function rawClient(head: string, trickle = ""): RawExchange {
  const { port } = new URL(t.url);
  const socket = connect(Number(port), "127.0.0.1");
  let received = "";
  socket.on("data", (c) => (received += c));
  socket.write(head);
  let i = 0;
  const timer = setInterval(() => {
    if (i < trickle.length && socket.writable) socket.write(trickle[i++]);
  }, 100);
  const closed = new Promise<string>((resolve) => {
    socket.on("close", () => {
      clearInterval(timer);
      resolve(received);
    });
    socket.on("error", () => undefined);
  });
  return { socket, closed, received: () => received };
}

function parseResponse(raw: string) {
  const [head, ...rest] = raw.split("\r\n\r\n");
  const [statusLine, ...headers] = head.split("\r\n");
  return {
    status: Number(statusLine.split(" ")[1]),
    headers: Object.fromEntries(
      headers.map((h) => [h.slice(0, h.indexOf(":")).toLowerCase(), h.slice(h.indexOf(":") + 1).trim()]),
    ),
    body: JSON.parse(rest.join("\r\n\r\n")),
  };
}

const jsonHead = (key: string, length: number) =>
  `POST /v1/integrations HTTP/1.1\r\nHost: mock\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

describe("slow clients", () => {
  it("times out a JSON body sent too slowly with 408, while other requests are served", async () => {
    await t.raw("/v1/calls"); // warm: the first request compiles what later ones reuse
    const body = JSON.stringify({ name: "x".repeat(200) });
    const slow = rawClient(jsonHead(t.mock.apiKey, body.length) + body.slice(0, 5), body.slice(5));
    const served = await Promise.all(
      Array.from({ length: 10 }, (_, i) => t.raw(i % 2 ? "/v1/calls" : "/v1/agents").then((r) => r.status)),
    );
    expect(served).toEqual(Array(10).fill(200));
    expect(slow.received()).toBe(""); // still waiting while the others were answered

    const response = parseResponse(await slow.closed);
    expect(response.status).toBe(408);
    expect(response.headers.connection).toBe("close");
    expectErrorBody(response.body, 408, "/v1/integrations");
    // Nothing half-created.
    const names = (await (await t.raw("/__mock/workspaces/default/integrations")).json()).map(
      (i: { name: string }) => i.name,
    );
    expect(names).not.toContain("x".repeat(200));
  });

  it("times out a multipart upload sent too slowly with 408", async () => {
    const boundary = "slowboundary";
    const part = `--${boundary}\r\nContent-Disposition: form-data; name="knowledge_base_files"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\n`;
    const head = `POST /v1/knowledge-bases HTTP/1.1\r\nHost: mock\r\nX-API-Key: ${t.mock.apiKey}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: 100000\r\n\r\n`;
    const slow = rawClient(head + part, "a".repeat(1000));
    const response = parseResponse(await slow.closed);
    expect(response.status).toBe(408);
    expectErrorBody(response.body, 408, "/v1/knowledge-bases");
    expect((await t.raw("/v1/calls")).status).toBe(200);
  });

  it("times out headers sent too slowly (slowloris) with 408", async () => {
    const slow = rawClient("GET /v1/calls HTTP/1.1\r\nHost: mock\r\n", `X-Slow: ${"a".repeat(1000)}`);
    const response = parseResponse(await slow.closed);
    expect(response.status).toBe(408);
    // No request yet, so no path: "*" stands for the server as a whole.
    expectErrorBody(response.body, 408, "*");
  });

  it("refuses an HTTP/1.1 request without Host with the 2.2 body, not Node's bare 400", async () => {
    const raw = await rawClient(
      `GET /v1/calls?size=1 HTTP/1.1\r\nX-API-Key: ${t.mock.apiKey}\r\nConnection: close\r\n\r\n`,
    ).closed;
    const response = parseResponse(raw);
    expect(response.status).toBe(400);
    expectErrorBody(response.body, 400, "/v1/calls");
  });

  it.each([
    ["a malformed header line", "GET /v1/calls HTTP/1.1\r\nHost: mock\r\nno colon here\r\n\r\n", 400, "/v1/calls"],
    ["an invalid method", "G@T /v1/calls HTTP/1.1\r\nHost: mock\r\n\r\n", 400, "*"],
    [
      "headers over the size limit",
      `GET /v1/agents HTTP/1.1\r\nHost: mock\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`,
      431,
      "/v1/agents",
    ],
    [
      "a bad chunk size",
      `POST /v1/integrations HTTP/1.1\r\nHost: mock\r\nX-API-Key: KEY\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n`,
      400,
      "/v1/integrations",
    ],
    ["an unsupported Expect", "GET /v1/calls HTTP/1.1\r\nHost: mock\r\nExpect: teapot\r\n\r\n", 417, "/v1/calls"],
  ])("answers %s with the 2.2 body and closes", async (_name, request, status, path) => {
    const response = parseResponse(await rawClient(request.replace("KEY", t.mock.apiKey)).closed);
    expect(response.status).toBe(status);
    expect(response.headers["content-type"]).toMatch(/^application\/json/);
    expectErrorBody(response.body, status, path);
  });
});

import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { REDACTED } from "../core/secrets.js";
import { capped, type CapturedExchange, type Recorded } from "../store/journal.js";
import { curlOf, harSchemaErrors } from "../test/control/har-readers.js";
import { CUT_COMMENT, harOf } from "./har.js";

const KEY = "client-key-secret-7";
let seq = 0;

function recorded(over: Partial<Recorded> & { exchange?: CapturedExchange }): Recorded {
  return {
    seq: ++seq,
    atMs: Date.parse("2026-11-01T12:00:00.000Z"),
    method: "GET",
    url: "/v1/agents?size=2",
    operationId: "listAgents",
    workspaceId: "default",
    status: 200,
    durationMs: 12.5,
    faultId: null,
    ...over,
  };
}

const captured = (over: Partial<CapturedExchange> = {}): CapturedExchange => ({
  requestHeaders: { host: "127.0.0.1:4010", "x-api-key": KEY, accept: "application/json" },
  responseHeaders: { "Content-Type": "application/json", "X-Request-Id": "r1" },
  responseBody: '{"data":[],"page":0}',
  ...over,
});

describe("harOf", () => {
  it("writes a valid HAR 1.2 entry per /v1 exchange, oldest first, with the kit's fields", async () => {
    const har = await harOf([
      recorded({ exchange: captured() }),
      recorded({ url: "/__mock/health", operationId: "getHealth", workspaceId: null }),
      recorded({
        method: "POST",
        url: "/v1/integrations",
        operationId: "createIntegration",
        status: 201,
        faultId: "f1",
        source: "upstream",
        exchange: captured({
          requestHeaders: {
            host: "backend.internal:4010",
            "x-forwarded-host": "mock.example:8443",
            "x-forwarded-proto": "https",
            "content-type": "application/json",
            "content-length": "15",
          },
          requestBody: { json: { name: "CRM" } },
        }),
      }),
    ]);
    expect(harSchemaErrors(har)).toEqual([]);
    expect(har.log).toMatchObject({ version: "1.2", creator: { name: "agent-platform-mock-kit" } });
    const [list, created] = har.log.entries;
    expect(har.log.entries).toHaveLength(2);
    expect(list).toMatchObject({
      startedDateTime: "2026-11-01T11:59:59.987Z",
      time: 12.5,
      timings: { send: 0, wait: 12.5, receive: 0 },
      request: {
        url: "http://127.0.0.1:4010/v1/agents?size=2",
        queryString: [{ name: "size", value: "2" }],
        bodySize: 0,
      },
      response: {
        status: 200,
        statusText: "OK",
        content: { size: 20, mimeType: "application/json", text: '{"data":[],"page":0}' },
        bodySize: 20,
      },
      _workspaceId: "default",
      _operationId: "listAgents",
      _faultId: null,
    });
    expect(list.request.headers).toContainEqual({ name: "x-api-key", value: REDACTED });
    expect(created).toMatchObject({
      request: {
        url: "https://mock.example:8443/v1/integrations",
        postData: { mimeType: "application/json", text: '{"name":"CRM"}' },
        bodySize: 15,
      },
      response: { status: 201, statusText: "Created" },
      _faultId: "f1",
      _source: "upstream",
    });
    expect(JSON.stringify(har)).not.toContain(KEY);
    // Another reader opens the entries: httpsnippet checks each request against HAR and writes curl.
    expect(curlOf(created.request)).toMatch(/curl --request POST[\s\S]*https:\/\/mock\.example:8443\/v1\/integrations/);
  });

  it("writes a reset connection as browsers write an aborted request, and an error with its status text", async () => {
    const har = await harOf([
      recorded({ status: null, faultId: "f2", exchange: captured({ responseHeaders: {}, responseBody: undefined }) }),
      recorded({ status: 404, exchange: captured() }),
    ]);
    expect(harSchemaErrors(har)).toEqual([]);
    expect(har.log.entries[0].response).toMatchObject({
      status: 0,
      statusText: "",
      _error: "connection reset",
      content: { size: 0 },
    });
    expect(har.log.entries[1].response.statusText).toBe("Not Found");
  });

  it("says a body was cut, and shows a compressed answer decoded with what compression saved", async () => {
    const long = JSON.stringify({ data: "x".repeat(70_000) });
    const text = JSON.stringify({ data: [{ id: "a" }] });
    const zipped = new Uint8Array(gzipSync(Buffer.from(text)));
    const har = await harOf([
      recorded({ exchange: capped(captured({ responseBody: long })) }),
      recorded({
        exchange: captured({
          responseHeaders: { "content-type": "application/json", "content-encoding": "gzip" },
          responseBody: zipped,
        }),
      }),
    ]);
    expect(harSchemaErrors(har)).toEqual([]);
    const [cut, gzip] = har.log.entries.map((e) => e.response);
    expect(cut.content).toMatchObject({ size: long.length, comment: CUT_COMMENT });
    expect(cut.content.text).toHaveLength(64 * 1024);
    expect(cut.bodySize).toBe(long.length);
    expect(gzip.content).toEqual({
      size: text.length,
      compression: text.length - zipped.length,
      mimeType: "application/json",
      text,
    });
    expect(gzip.bodySize).toBe(zipped.length);
  });

  it("keeps the newest `limit` exchanges, counting /v1 exchanges only", async () => {
    const entries = [1, 2, 3].flatMap((n) => [
      recorded({ url: `/v1/agents?page=${n}`, exchange: captured() }),
      recorded({ url: "/__mock/requests", operationId: "listRequests" }),
    ]);
    const har = await harOf(entries, 2);
    expect(har.log.entries.map((e) => e.request.url.split("?")[1])).toEqual(["page=2", "page=3"]);
  });
});

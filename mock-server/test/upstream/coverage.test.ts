/**
 * What an app exercised through the upstream door counts as the mock's answers do: the upstream's
 * answers show their variants in the door workspace's coverage, and the HAR names them as forwarded.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { components } from "../../../generated/mock-control.js";
import { startMock, type RunningMock } from "../../server.js";

type Coverage = components["schemas"]["Coverage"];

describe("coverage through the upstream door", () => {
  let upstream: RunningMock;
  let door: RunningMock;
  beforeAll(async () => {
    upstream = await startMock({ log: () => undefined });
    door = await startMock({ upstream: upstream.url, route: "getCall=mock", log: () => undefined });
  });
  afterAll(async () => {
    await door?.close();
    await upstream?.close();
  });

  it("counts the upstream's answers and the mock's alike, for the door's workspace", async () => {
    const headers = { "X-API-Key": upstream.apiKey };
    const list = await fetch(`${door.url}/v1/calls?size=1`, { headers });
    expect(list.headers.get("X-Mock-Source")).toBe("upstream");
    const page = (await list.json()) as { data: { status: string }[]; hasNext: boolean };
    expect(page.hasNext).toBe(true);
    // Routed to the mock: an id no record has.
    const missing = await fetch(`${door.url}/v1/calls/00000000-0000-4000-8000-000000000000`, { headers });
    expect(missing.headers.get("X-Mock-Source")).toBe("mock");
    expect(missing.status).toBe(404);

    const coverage = (await (await fetch(`${door.url}/__mock/coverage`)).json()) as Coverage;
    const seen = (operationId: string, kind: string, value: string) =>
      coverage.variants.find((v) => v.operationId === operationId && v.kind === kind && v.value === value)?.seen;
    expect(seen("listCalls", "status", "200")).toBe(true);
    expect(seen("listCalls", "page", "first")).toBe(true);
    expect(seen("listCalls", "enum", `status=${page.data[0].status}`)).toBe(true);
    expect(seen("getCall", "status", "404")).toBe(true);
    expect(seen("listCalls", "page", "empty")).toBe(false);
    // The upstream's own mock saw the traffic too, as its own workspace's.
    const upstreamSide = (await (await fetch(`${upstream.url}/__mock/coverage`)).json()) as Coverage;
    expect(upstreamSide.variants.find((v) => v.operationId === "listCalls" && v.value === "first")?.seen).toBe(true);

    const har = (await (await fetch(`${door.url}/__mock/requests.har`)).json()) as {
      log: { entries: { request: { url: string }; _source?: string }[] };
    };
    const sources = har.log.entries.map((e) => `${new URL(e.request.url).pathname} ${e._source}`);
    expect(sources).toEqual(["/v1/calls upstream", "/v1/calls/00000000-0000-4000-8000-000000000000 mock"]);
  });
});

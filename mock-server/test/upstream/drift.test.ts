/**
 * Drift, end to end through the upstream door (startMock({ upstream })): real servers on loopback.
 * - A correct upstream (the kit's own mock) gives no response drift under the whole conformance suite,
 *   run through the door as a foreign target; the invalid requests the suite sends on purpose are request
 *   findings.
 * - An upstream of the test's own answers, per route, a valid body from the kit's mock with exactly one
 *   rule broken: each rule kind shows once, as exactly one finding where it was planted, and a valid
 *   answer shows none. Then the endpoint's filters, its reset, and the console line per new kind.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../../conformance/cli.js";
import { startMock, type RunningMock } from "../../server.js";
import { spawnMock, type MockProcess } from "../process.js";
import { copy, realAnswer, startUpstream, type CannedAnswer, type OwnUpstream } from "./broken-upstream.js";

interface Finding {
  id: string;
  at: string;
  operationId: string;
  workspaceId: string | null;
  rule: string;
  level: "documented" | "assumed";
  where: "request" | "response";
  path: string;
  message: string;
  exchange: {
    request: { method: string; url: string; headers: Record<string, string>; body?: unknown };
    response?: { status: number; headers: Record<string, string>; body?: unknown };
  };
}

async function drift(door: RunningMock, query = ""): Promise<Finding[]> {
  const res = await fetch(`${door.url}/__mock/drift${query}`);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as Finding[];
}

const brief = (f: Finding) =>
  `${f.operationId} ${f.where} ${f.rule} ${f.level} ${f.path} (${f.exchange.request.url}): ${f.message}`;

describe("a correct upstream", () => {
  // A second mock process, as a deployment is one: its own event loop, its own clock (real: a foreign
  // deployment's only clock is its Date header).
  let upstream: MockProcess;
  let door: RunningMock;
  beforeAll(async () => {
    upstream = await spawnMock(["--clock", "real", "--log-format", "off"]);
    door = await startMock({ clock: "real", upstream: upstream.url, journalCapacity: 5000, log: () => {} });
  });
  afterAll(async () => {
    await door?.close();
    await upstream?.stop();
  });

  it("the conformance suite through the door finds no response drift; its invalid requests are request findings", async () => {
    const { code, run } = await main(
      ["--base-url", door.url, "--api-key", upstream.apiKey, "--target", "foreign", "--level", "assumed", "--quiet"],
      {},
      { out: () => {}, err: () => {} },
    );
    const failed = run!.results
      .filter((r) => r.outcome === "failed" || r.outcome === "errored")
      .map((r) => `${r.id}: ${r.error ?? ""} ${r.failures[0]?.pointer} ${r.failures[0]?.message}`);
    expect(failed, "the door should pass the kit's mock through unchanged").toEqual([]);
    expect(code).toBe(0);
    expect(run!.target.kind).toBe("foreign");

    // The suite went through the door to the upstream: lists, gets, creates and errors of several operations.
    const count = async (query: string) =>
      ((await (await fetch(`${door.url}/__mock/requests/count?${query}`)).json()) as { count: number }).count;
    for (const query of [
      "operationId=listAgents",
      "operationId=listCalls",
      "operationId=getCall",
      "operationId=getCall&status=404",
      "operationId=createIntegration&status=201",
      "operationId=createIntegration&status=400",
      "operationId=createKnowledgeBase&status=201",
      "operationId=createKnowledgeBase&status=415",
      "operationId=createChat&status=200",
      "operationId=createBatchRun&status=400",
      "operationId=updatePhoneNumber&status=200",
      "operationId=updatePhoneNumber&status=404",
      "operationId=deleteQaRule&status=404",
      "status=401",
    ])
      expect(await count(query), query).toBeGreaterThan(0);
    const journal = (await (await fetch(`${door.url}/__mock/requests?operationId=getCall`)).json()) as {
      source?: string;
    }[];
    expect(new Set(journal.map((e) => e.source))).toEqual(new Set(["upstream"]));

    const findings = await drift(door);
    const response = findings.filter((f) => f.where === "response");
    expect(response.length, `response drift from a correct upstream:\n${response.map(brief).join("\n")}`).toBe(0);
    // The suite sends size=0 on purpose: the client broke the contract, not the upstream.
    const sizeZero = findings.filter(
      (f) => f.where === "request" && f.path === "/query/size" && /[?&]size=0(&|$)/.test(f.exchange.request.url),
    );
    expect(sizeZero.length, findings.map(brief).join("\n")).toBeGreaterThan(0);
    for (const f of sizeZero) {
      expect(f).toMatchObject({ rule: "schema", level: "documented", workspaceId: "default" });
      expect(f.exchange.response?.status).toBe(400);
    }
    expect(new Set(sizeZero.map((f) => f.operationId)).size).toBeGreaterThan(1);
  }, 120_000);
});

/** What the kit's mock answered, read once: the broken answers start from these. */
interface Real {
  callIds: string[];
  call: any;
  calls: any;
  testRuns: any;
  phoneNumbers: any;
  agents: any;
  notFound: any;
  sizeZero: any;
}

const UNKNOWN_CALL = "00000000-0000-4000-8000-000000000001";

interface Break {
  rule: string;
  /** The request the client sends; the upstream breaks its answer to it. */
  path: (real: Real) => string;
  answer: (real: Real) => CannedAnswer;
  operationId: string;
  status: number;
  /** Where the finding points. */
  at: string;
  level: "documented" | "assumed";
}

const withCall = (change: (call: any) => void) => (real: Real) => {
  const call = copy(real.call);
  change(call);
  return { status: 200, body: call };
};

/** One per rule kind; each answer breaks that rule and nothing else. */
const BREAKS: Break[] = [
  {
    rule: "status",
    path: (r) => `/v1/calls/${r.callIds[1]}`,
    answer: (r) => ({
      status: 418,
      body: { ...r.notFound, status: 418, error: "I'm a teapot", path: `/v1/calls/${r.callIds[1]}` },
    }),
    operationId: "getCall",
    status: 418,
    at: "#status",
    level: "documented",
  },
  {
    rule: "content-type",
    path: (r) => `/v1/calls/${r.callIds[2]}`,
    answer: (r) => ({ status: 200, headers: { "content-type": "text/plain" }, body: JSON.stringify(r.call) }),
    operationId: "getCall",
    status: 200,
    at: "#header/content-type",
    level: "documented",
  },
  {
    rule: "body",
    path: (r) => `/v1/calls/${r.callIds[3]}`,
    answer: () => ({ status: 200, headers: { "content-type": "application/json" }, body: "{not json" }),
    operationId: "getCall",
    status: 200,
    at: "",
    level: "documented",
  },
  {
    rule: "required",
    path: (r) => `/v1/calls/${r.callIds[4]}`,
    answer: withCall((call) => delete call.callId),
    operationId: "getCall",
    status: 200,
    at: "/callId",
    level: "documented",
  },
  {
    rule: "enum",
    path: (r) => `/v1/calls/${r.callIds[5]}`,
    answer: withCall((call) => (call.status = "bogus")),
    operationId: "getCall",
    status: 200,
    at: "/status",
    level: "documented",
  },
  {
    rule: "format",
    path: (r) => `/v1/calls/${r.callIds[6]}`,
    answer: withCall((call) => (call.createdAt = "not-a-date")),
    operationId: "getCall",
    status: 200,
    at: "/createdAt",
    level: "documented",
  },
  {
    rule: "schema",
    path: (r) => `/v1/calls/${r.callIds[7]}`,
    answer: withCall((call) => (call.duration = "long")),
    operationId: "getCall",
    status: 200,
    at: "/duration",
    level: "documented",
  },
  {
    // Level assumed closes every object: a property the spec does not name rests on the kit's choice.
    rule: "schema",
    path: (r) => `/v1/calls/${r.callIds[8]}`,
    answer: withCall((call) => (call.extraField = 1)),
    operationId: "getCall",
    status: 200,
    at: "/extraField",
    level: "assumed",
  },
  {
    rule: "timeline",
    path: (r) => `/v1/calls/${r.callIds[9]}`,
    answer: withCall((call) => (call.updatedAt = new Date(Date.parse(call.createdAt) - 86_400_000).toISOString())),
    operationId: "getCall",
    status: 200,
    at: "/updatedAt",
    level: "documented",
  },
  {
    rule: "error-body",
    path: () => `/v1/calls/${UNKNOWN_CALL}`,
    answer: (r) => ({ status: 404, body: { ...r.notFound, status: 400, path: `/v1/calls/${UNKNOWN_CALL}` } }),
    operationId: "getCall",
    status: 404,
    at: "/status",
    level: "documented",
  },
  {
    rule: "pagination",
    path: () => "/v1/calls?size=2",
    answer: (r) => {
      const page = copy(r.calls);
      page.data = page.data.slice(0, 2);
      page.size = 2;
      page.totalPages = Math.ceil(page.totalCount / 2) + 1;
      return { status: 200, body: page };
    },
    operationId: "listCalls",
    status: 200,
    at: "/totalPages",
    level: "documented",
  },
  {
    // E8: test runs are listed most recently created first.
    rule: "order",
    path: () => "/v1/test-runs?size=3",
    answer: (r) => {
      const page = copy(r.testRuns);
      [page.data[0], page.data[1]] = [page.data[1], page.data[0]];
      return { status: 200, body: page };
    },
    operationId: "listTestRuns",
    status: 200,
    at: "/data/1/createdDate",
    level: "documented",
  },
  {
    rule: "e164",
    path: () => "/v1/phone-number",
    answer: (r) => {
      const page = copy(r.phoneNumbers);
      page.data[0].sipPhoneNumber = page.data[0].sipPhoneNumber.replace(/^\+/, "00");
      return { status: 200, body: page };
    },
    operationId: "listPhoneNumbers",
    status: 200,
    at: "/data/0/sipPhoneNumber",
    level: "documented",
  },
];

/** Valid answers, as the kit's mock gave them: no finding. */
const CONTROLS: { path: (real: Real) => string; answer: (real: Real) => CannedAnswer }[] = [
  { path: (r) => `/v1/calls/${r.callIds[0]}`, answer: (r) => ({ status: 200, body: r.call }) },
  { path: () => "/v1/agents", answer: (r) => ({ status: 200, body: r.agents }) },
  { path: () => "/v1/calls", answer: (r) => ({ status: 200, body: r.calls }) },
  {
    path: () => `/v1/calls/${UNKNOWN_CALL.replace(/1$/, "2")}`,
    answer: (r) => ({ status: 404, body: { ...r.notFound, path: `/v1/calls/${UNKNOWN_CALL.replace(/1$/, "2")}` } }),
  },
];

/** The client broke the contract (size=0), the upstream answered right: one request finding. */
const REQUEST_BREAK = "/v1/agents?size=0";

describe("a broken upstream", () => {
  let real: RunningMock;
  let upstream: OwnUpstream;
  let door: RunningMock;
  let fixture: Real;
  const logs: string[] = [];

  beforeAll(async () => {
    real = await startMock({ log: () => {} });
    const calls = await realAnswer(real, "/v1/calls");
    const callIds = calls.body.data.map((c: { callId: string }) => c.callId);
    expect(callIds.length).toBeGreaterThanOrEqual(10);
    fixture = {
      callIds,
      calls: calls.body,
      call: (await realAnswer(real, `/v1/calls/${callIds[0]}`)).body,
      testRuns: (await realAnswer(real, "/v1/test-runs?size=3")).body,
      phoneNumbers: (await realAnswer(real, "/v1/phone-number")).body,
      agents: (await realAnswer(real, "/v1/agents")).body,
      notFound: (await realAnswer(real, `/v1/calls/${UNKNOWN_CALL}`)).body,
      sizeZero: (await realAnswer(real, REQUEST_BREAK)).body,
    };
    // The order break needs two distinct times to swap.
    expect(fixture.testRuns.data[0].createdDate > fixture.testRuns.data[1].createdDate).toBe(true);
    const routes: Record<string, CannedAnswer> = {};
    for (const r of [...BREAKS, ...CONTROLS]) routes[`GET ${r.path(fixture)}`] = r.answer(fixture);
    routes[`GET ${REQUEST_BREAK}`] = { status: 400, body: fixture.sizeZero };
    expect(Object.keys(routes)).toHaveLength(BREAKS.length + CONTROLS.length + 1);
    upstream = await startUpstream(routes);
    door = await startMock({ upstream: upstream.url, log: (line) => logs.push(line) });
  });
  afterAll(async () => {
    await door?.close();
    await upstream?.close();
    await real?.close();
  });

  const send = async (path: string) => {
    const res = await fetch(`${door.url}${path}`, { headers: { "X-API-Key": real.apiKey } });
    return { status: res.status, source: res.headers.get("x-mock-source"), text: await res.text() };
  };
  const findingsOf = async (path: string) => (await drift(door)).filter((f) => f.exchange.request.url === path);

  it.each(BREAKS.map((b) => [`${b.rule}${b.level === "assumed" ? " (assumed)" : ""}`, b] as const))(
    "%s: exactly that finding, where it was planted",
    async (_name, b) => {
      const path = b.path(fixture);
      const answered = await send(path);
      // The client gets the upstream's answer as it was.
      expect(answered.status).toBe(b.status);
      expect(answered.source).toBe("upstream");
      const canned = b.answer(fixture);
      expect(answered.text).toBe(typeof canned.body === "string" ? canned.body : JSON.stringify(canned.body));

      const found = await findingsOf(path);
      expect(
        found.map((f) => ({ rule: f.rule, where: f.where, path: f.path, level: f.level, operationId: f.operationId })),
        found.map(brief).join("\n"),
      ).toEqual([{ rule: b.rule, where: "response", path: b.at, level: b.level, operationId: b.operationId }]);
      const [f] = found;
      expect(f.workspaceId).toBe("default");
      expect(f.message.length).toBeGreaterThan(10);
      expect(Number.isNaN(Date.parse(f.at))).toBe(false);
      expect(f.exchange.request).toMatchObject({ method: "GET", url: path });
      expect(f.exchange.request.headers["x-api-key"]).toBe("[redacted]");
      expect(f.exchange.response?.status).toBe(b.status);
      expect(f.exchange.response?.body).toEqual(
        typeof canned.body === "string" && b.rule === "body" ? canned.body : JSON.parse(answered.text),
      );
    },
  );

  it("a request's detail holds the findings about it, matched by its X-Request-Id", async () => {
    const b = BREAKS[0];
    const path = b.path(fixture);
    await send(path);
    const [entry] = await (await fetch(`${door.url}/__mock/requests?operationId=${b.operationId}&limit=1`)).json();
    const detail = await (await fetch(`${door.url}/__mock/requests/${entry.id}`)).json();
    expect(detail.source).toBe("upstream");
    const id = detail.har.response.headers.find((h: { name: string }) => h.name === "x-request-id").value;
    expect(detail.drift.length).toBeGreaterThan(0);
    for (const finding of detail.drift) expect(finding.exchange.response.headers["x-request-id"]).toBe(id);
    expect(detail.drift.map((f: { rule: string }) => f.rule)).toContain(b.rule);
  });

  it("valid answers on control routes give no finding", async () => {
    for (const control of CONTROLS) {
      const path = control.path(fixture);
      const answered = await send(path);
      expect(answered.source).toBe("upstream");
      expect(answered.status).toBe(control.answer(fixture).status);
      expect((await findingsOf(path)).map(brief), path).toEqual([]);
    }
    expect((await drift(door, "?operationId=listAgents")).map(brief)).toEqual([]);
  });

  it("the filters: rule, level, where, operationId, status, limit, and each together", async () => {
    await send(REQUEST_BREAK);
    const request = await findingsOf(REQUEST_BREAK);
    expect(request.map((f) => [f.where, f.rule, f.path, f.level])).toEqual([
      ["request", "schema", "/query/size", "documented"],
    ]);
    // Every break is in (the tests above sent them); the filters are checked against the whole list.
    for (const b of BREAKS) if ((await findingsOf(b.path(fixture))).length === 0) await send(b.path(fixture));
    const all = await drift(door);
    expect(all.length).toBeGreaterThanOrEqual(BREAKS.length + 1);
    // Newest first.
    expect(all.map((f) => Number(f.id))).toEqual([...all.map((f) => Number(f.id))].sort((a, b) => b - a));

    const byFilter: [string, (f: Finding) => boolean][] = [
      ["rule=enum", (f) => f.rule === "enum"],
      ["rule=schema", (f) => f.rule === "schema"],
      ["level=assumed", (f) => f.level === "assumed"],
      ["level=documented", (f) => f.level === "documented"],
      ["where=request", (f) => f.where === "request"],
      ["where=response", (f) => f.where === "response"],
      ["operationId=listCalls", (f) => f.operationId === "listCalls"],
      ["operationId=getCall&status=404", (f) => f.operationId === "getCall" && f.exchange.response?.status === 404],
      [
        "rule=schema&level=documented&where=response",
        (f) => f.rule === "schema" && f.level === "documented" && f.where === "response",
      ],
      ["method=get&workspaceId=default", () => true],
      ["workspaceId=other", () => false],
    ];
    for (const [query, keep] of byFilter) {
      const filtered = await drift(door, `?${query}`);
      expect(
        filtered.map((f) => f.id),
        query,
      ).toEqual(all.filter(keep).map((f) => f.id));
    }
    // Each filter picks what was planted.
    expect((await drift(door, "?level=assumed")).map((f) => f.path)).toEqual(["/extraField"]);
    expect((await drift(door, "?where=request")).map((f) => f.exchange.request.url)).toEqual([REQUEST_BREAK]);
    expect((await drift(door, "?rule=schema")).map((f) => f.path).sort()).toEqual([
      "/duration",
      "/extraField",
      "/query/size",
    ]);
    expect((await drift(door, "?operationId=listCalls")).map((f) => f.rule)).toEqual(["pagination"]);
    expect((await drift(door, "?operationId=getCall&status=404")).map((f) => f.rule)).toEqual(["error-body"]);

    const limited = await drift(door, "?limit=2");
    expect(limited.map((f) => f.id)).toEqual(all.slice(0, 2).map((f) => f.id));
    expect((await drift(door, "?rule=schema&limit=1")).map((f) => f.id)).toEqual(
      all
        .filter((f) => f.rule === "schema")
        .slice(0, 1)
        .map((f) => f.id),
    );
    // Values outside the documented filters are refused.
    for (const bad of ["rule=bogus", "level=sometimes", "where=nowhere", "limit=0", "limit=1001"])
      expect((await fetch(`${door.url}/__mock/drift?${bad}`)).status, bad).toBe(400);
  });

  it("tells the console one line per new kind: the same break twice is one line", async () => {
    const enumBreak = BREAKS.find((b) => b.rule === "enum")!;
    const path = enumBreak.path(fixture);
    await send(path);
    await send(path);
    await drift(door); // waits for the checks under way
    expect((await findingsOf(path)).length).toBeGreaterThanOrEqual(2);
    const lines = logs.filter((l) => l.startsWith("drift "));
    expect(lines.filter((l) => l.includes("getCall response enum at /status"))).toHaveLength(1);
    expect(lines.find((l) => l.includes("getCall response enum at /status"))).toMatch(/^drift \(documented\) /);
    // One line per kind (operation, side, rule, place) of all found so far, no more.
    const kinds = new Set(
      (await drift(door)).map((f) => `${f.operationId} ${f.where} ${f.rule} at ${f.path || "(body)"}:`),
    );
    expect(lines).toHaveLength(kinds.size);
    for (const kind of kinds)
      expect(
        lines.filter((l) => l.includes(kind)),
        kind,
      ).toHaveLength(1);
    // A control route adds no line.
    await send(CONTROLS[0].path(fixture));
    await drift(door);
    expect(logs.filter((l) => l.startsWith("drift "))).toHaveLength(kinds.size);
  });

  it("POST /__mock/reset empties the findings; a kind found again is told again", async () => {
    expect((await drift(door)).length).toBeGreaterThan(0);
    const reset = await fetch(`${door.url}/__mock/reset`, { method: "POST" });
    expect(reset.status).toBeLessThan(300);
    expect(await drift(door)).toEqual([]);
    const before = logs.length;
    const path = BREAKS.find((b) => b.rule === "timeline")!.path(fixture);
    await send(path);
    expect((await drift(door)).map((f) => f.rule)).toEqual(["timeline"]);
    expect(logs.slice(before).filter((l) => l.includes("getCall response timeline at /updatedAt"))).toHaveLength(1);
  });
});

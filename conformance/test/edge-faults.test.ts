/**
 * Where subtle faults hide: the fixtures make the situations (lists past 20 records and the third page,
 * timestamps tied across page boundaries, multi-valued fields, filters combined), and faults that only
 * show there are caught by the rule named, at the level named (and not at a lower one when it rests
 * on an assumption). The whole table is conformance/test/faults/table.ts; these rows prove the rules
 * over those situations.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mockFixtures } from "../fixtures/mock-fixtures.js";
import type { FaultHooks } from "./faults/proxy.js";
import { jsonResponse, mutate, mutateItems, on, parse, relist, withJson, type Json } from "./faults/rewrite.js";
import { runThrough } from "./faults/run-fault.js";
import { hasMock, NO_MOCK, startKitMock, type Running } from "./support.js";

const second = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/** Keyset paging on a second-resolution timestamp with a strict `<`: records tied with a page's last one are skipped. */
function keysetOnSeconds(field: string) {
  return (items: Json[], page: number, size: number) => {
    let start = 0;
    for (let p = 0; p < page; p++) {
      const last = items[Math.min(start + size, items.length) - 1];
      start = last ? items.findIndex((r, i) => i >= start + size && second(r[field]) < second(last[field])) : -1;
      if (start < 0) return [];
    }
    return items.slice(start, start + size);
  };
}

/** Records of equal `field` ordered by id instead of creation (ORDER BY created DESC, id): only a known creation order shows it. */
const tiesById = (field: string) => (items: Json[]) =>
  [...items].sort(
    (a, b) =>
      Date.parse(b[field]) - Date.parse(a[field]) ||
      String(a.callId ?? a.jobId).localeCompare(String(b.callId ?? b.jobId)),
  );

/** Accepts, as if it were the key, a key the mock refused that `matches` the last good one. */
function lenientKey(matches: (sent: string, good: string) => boolean): FaultHooks {
  return {
    response: (req, res, ctx) => {
      const sent = req.headers["x-api-key"];
      if (!req.operationId || res.status !== 401 || !ctx.goodKey || !sent || !matches(sent, ctx.goodKey))
        return undefined;
      return ctx.forward({ ...req, headers: { ...req.headers, "x-api-key": ctx.goodKey } });
    },
  };
}

/** A list whose requests matching `when` are answered from the whole list as `select` leaves it (relist cannot see the query). */
function listWhen(
  op: string,
  when: (q: URLSearchParams) => boolean,
  select: (items: Json[], q: URLSearchParams) => Json[],
): FaultHooks {
  return on(op, {
    async request(req, ctx) {
      if (!when(req.query)) return undefined;
      const [page, size] = [Number(req.query.get("page") ?? 0), Number(req.query.get("size") ?? 10)];
      const whole = parse(await ctx.forward({ ...req, query: new URLSearchParams({ size: "100000" }) }));
      const items = select(whole.data, req.query);
      const totalPages = Math.ceil(items.length / size);
      return jsonResponse(200, {
        data: items.slice(page * size, page * size + size),
        page,
        size,
        totalCount: items.length,
        totalPages,
        hasNext: page + 1 < totalPages,
        hasPrevious: page > 0,
      });
    },
  });
}

interface Row {
  id: string;
  /** The rule that must fail, and the lowest level it fails at. */
  rule: string;
  level: "documented" | "assumed";
  hooks(): FaultHooks;
}

const rows: Row[] = [
  {
    id: "keyset paging loses records tied with a page's last",
    rule: "listCalls.walk",
    level: "documented",
    hooks: () => relist("listCalls", { slice: keysetOnSeconds("createdAt") }),
  },
  {
    id: "calls created at the same instant ordered by id",
    rule: "listCalls.newest-first",
    level: "documented",
    hooks: () => relist("listCalls", { items: tiesById("createdAt") }),
  },
  {
    id: "tied test runs ordered one way at odd page sizes, the other at even",
    rule: "listTestRuns.walk",
    level: "documented",
    hooks: () =>
      relist("listTestRuns", {
        slice: (items, p, s) => (s % 2 ? tiesById("createdDate")(items) : items).slice(p * s, p * s + s),
      }),
  },
  {
    id: "a page holds at most 20 items whatever the size",
    rule: "listCalls.total-pages",
    level: "documented",
    hooks: () => relist("listCalls", { slice: (items, p, s) => items.slice(p * s, p * s + Math.min(s, 20)) }),
  },
  {
    id: "pages past the second start one item early",
    rule: "listPhoneNumbers.walk",
    level: "documented",
    hooks: () =>
      relist("listPhoneNumbers", {
        slice: (items, p, s) => items.slice(Math.max(0, p * s - (p >= 2 ? 1 : 0)), p * s + s),
      }),
  },
  {
    id: "agentId with active=false ignores active",
    rule: "listWebhooks.agent-filter",
    level: "documented",
    hooks: () =>
      on("listWebhooks", {
        request: (req) =>
          req.query.has("agentId") && req.query.get("active") === "false"
            ? { ...req, query: new URLSearchParams([...req.query].filter(([k]) => k !== "active")) }
            : undefined,
      }),
  },
  {
    id: "batchId and agentId together select either",
    rule: "listTestRuns.filters",
    level: "documented",
    hooks: () =>
      listWhen(
        "listTestRuns",
        (q) => q.has("batchId") && q.has("agentId"),
        (items, q) => items.filter((r) => r.batchId === q.get("batchId") || r.agent.agentId === q.get("agentId")),
      ),
  },
  {
    id: "a status filter lists oldest first",
    rule: "listCalls.status-filter",
    level: "documented",
    hooks: () =>
      listWhen(
        "listCalls",
        (q) => q.has("status"),
        (items, q) => items.filter((c) => c.status === q.get("status")).reverse(),
      ),
  },
  {
    id: "a deleted QA rule served again from a cache on the second read",
    rule: "deleteQaRule.then-gone",
    level: "documented",
    hooks: () => ({
      response: (req, res, ctx) => {
        if (req.operationId !== "getQaRule") return undefined;
        const id = req.params.qaRuleId;
        if (res.status === 200) return void ctx.memory.set(id, parse(res));
        const reads = ((ctx.memory.get(`404:${id}`) as number | undefined) ?? 0) + 1;
        ctx.memory.set(`404:${id}`, reads);
        const cached = ctx.memory.get(id);
        return res.status === 404 && cached && reads === 2 ? withJson(res, cached, { status: 200 }) : undefined;
      },
    }),
  },
  {
    id: "keys compared without case",
    rule: "listAgents.key-variants",
    level: "documented",
    hooks: () => lenientKey((sent, good) => sent.toLowerCase() === good.toLowerCase()),
  },
  {
    id: "whitespace inside a key removed",
    rule: "listCalls.key-variants",
    level: "documented",
    hooks: () => lenientKey((sent, good) => sent.replace(/\s+/g, "") === good),
  },
  {
    id: "a key matched by its prefix",
    rule: "getCall.key-variants",
    level: "documented",
    hooks: () => lenientKey((sent, good) => sent.startsWith(good)),
  },
  {
    id: "E17 shows the first event kind only",
    rule: "listWebhooks.events-whole",
    level: "documented",
    hooks: () => mutateItems("listWebhooks", (w) => void (w.events = String(w.events).split(",")[0])),
  },
  {
    id: "E17 names the event kinds in another order",
    rule: "listWebhooks.events-whole",
    level: "assumed",
    hooks: () => mutateItems("listWebhooks", (w) => void (w.events = String(w.events).split(",").reverse().join(","))),
  },
  {
    id: "E8 embeds the first mockToolData entry only",
    rule: "listTestRuns.test-case-whole",
    level: "documented",
    hooks: () =>
      mutateItems("listTestRuns", (r) => void (r.testCase.mockToolData = r.testCase.mockToolData.slice(0, 1))),
  },
  {
    id: "E8 embeds mockData in reverse order",
    rule: "listTestRuns.test-case-whole",
    level: "assumed",
    hooks: () => mutateItems("listTestRuns", (r) => void r.testCase.mockData.reverse()),
  },
  {
    id: "E7 sorts the test cases by id",
    rule: "createBatchRun.created",
    level: "assumed",
    hooks: () =>
      mutate(
        "getBatchRun",
        200,
        (b) => void b.testCases.sort((x: Json, y: Json) => String(x.testCaseId).localeCompare(String(y.testCaseId))),
      ),
  },
];

describe.skipIf(!hasMock)(`edge situations${hasMock ? "" : ` (skipped: ${NO_MOCK})`}`, () => {
  let mock: Running;
  beforeAll(async () => void (mock = await startKitMock()));
  afterAll(async () => mock?.close());

  it("the fixtures fill lists past 20 records, tie timestamps across page boundaries and fill multi-valued fields", async () => {
    const { fixtures } = await mockFixtures({ baseUrl: mock.url }, "edge-fixtures");
    const records = async (collection: string) => fixtures.control!.listRecords(collection);
    const counts = Object.fromEntries(
      await Promise.all(
        ["agents", "calls", "phoneNumbers", "testRuns"].map(async (c) => [c, (await records(c)).length]),
      ),
    );
    const webhooks = await records("webhooks");
    expect(counts).toEqual({ agents: 30, calls: 30, phoneNumbers: 24, testRuns: 30 });
    expect([webhooks.filter((w) => w.active).length, webhooks.filter((w) => !w.active).length]).toEqual([24, 11]);
    // Newest first, as the lists show them: some page boundary of size 3 and of 5 falls between records of one second.
    for (const [collection, field] of [
      ["calls", "createdAt"],
      ["testRuns", "createdDate"],
    ]) {
      const list = await records(collection);
      for (const size of [3, 5]) {
        const tied = list.filter((r, i) => i > 0 && i % size === 0 && second(r[field]) === second(list[i - 1][field]));
        expect(tied.length, `${collection} at size ${size}`).toBeGreaterThan(0);
      }
    }
    expect(webhooks.some((w) => w.events.split(",").length > 1)).toBe(true);
    expect(
      (await records("testCases")).filter((c) => c.mockToolData.length > 1 && c.mockData.length > 1).length,
    ).toBeGreaterThan(3);
    expect((await records("batchRuns")).every((b) => b.testCases.length > 1)).toBe(true);
  });

  it.each(rows.map((r) => [r.id, r] as const))("%s", async (_id, row) => {
    const only = row.rule.replace(/\./g, "\\.");
    const failedAt = async (level: string) => {
      const { failed } = await runThrough(mock, row.hooks(), ["--level", level, "--only", `/${only}$/`]);
      return failed;
    };
    const failed = await failedAt(row.level);
    expect(failed.length, `${row.rule} must fail at level ${row.level}`).toBeGreaterThan(0);
    if (row.level === "assumed")
      expect(
        await failedAt("documented"),
        `${row.rule} rests on an assumption: it must pass at level documented`,
      ).toEqual([]);
  });
});

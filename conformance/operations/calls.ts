/** E10 list calls and E11 get call: pagination, order, the status filter and the call invariants of 2.9. */
import { randomUUID } from "node:crypto";
import { defineRules, obj, type RuleContext } from "../lib/rule.js";
import type { Exchange } from "../lib/http.js";
import { checkFilter, fetchPage, listOf, walk, type ListConfig } from "./list-pages.js";
import { orderRule } from "./ordering.js";
import { paginationRules } from "./pagination.js";
import { getMatchesStore, listMatchesStore, type StoreConfig } from "./store-agreement.js";

export const CALL_STATUSES = ["scheduled", "in_progress", "ended", "not_connected", "error"];
const cfg: ListConfig = {
  ...listOf("listCalls"),
  path: "/v1/calls",
  idOf: (c) => c.callId,
};

/** Calls move on with the clock: an answer older than the stored record is not compared with it. */
const callStore: StoreConfig = {
  collection: "calls",
  idOf: (c) => c.callId,
  version: (c) => Date.parse(c.updatedAt) || 0,
};

const isNull = (v: unknown) => v === null || v === undefined;

/** A call of both listings whose state differs, or a call in one only: the target moved between them. */
function movedOn(before: Record<string, any>[], after: Record<string, any>[]): boolean {
  const then = new Map(before.map((c) => [c.callId, c.status]));
  return before.length !== after.length || after.some((c) => then.get(c.callId) !== c.status);
}

/** 2.9 and section 3: which fields may be set in which state. */
export function checkCall(t: RuleContext, call: Record<string, any>, pointer: string, exchange: Exchange): void {
  const at = (field: string) => `${pointer}/${field}`;
  const expectNull = (field: string, why: string, assumed = false) =>
    t.expect(isNull(call[field]), {
      pointer: at(field),
      expected: "null",
      actual: call[field],
      message: `${call.status} call: ${why}`,
      exchange,
      assumed,
    });
  const expectSet = (field: string, why: string, assumed = false) =>
    t.expect(!isNull(call[field]), {
      pointer: at(field),
      expected: "a value",
      actual: call[field],
      message: `${call.status} call: ${why}`,
      exchange,
      assumed,
    });
  switch (call.status) {
    case "scheduled":
      expectNull("startTime", "startTime is null if the call never reached in_progress");
      expectNull("endTime", "endTime is null while the call never connected");
      expectNull("duration", "duration is null if never connected");
      expectNull("terminationReason", "terminationReason is null until the call has ended");
      expectNull("recordingUrl", "recordingUrl is available only after the call ends");
      break;
    case "in_progress":
      expectSet("startTime", "an in-progress call has started");
      expectNull("endTime", "endTime is null while in progress");
      expectNull(
        "duration",
        "duration runs from startTime to endTime, so it is null while endTime is (assumption: no running duration)",
        true,
      );
      expectNull("terminationReason", "terminationReason is null until the call has ended");
      expectNull("recordingUrl", "recordingUrl is available only after the call ends");
      break;
    case "ended":
      expectSet("startTime", "an ended call started");
      expectSet("endTime", "an ended call has an end");
      expectSet("duration", "duration runs from startTime to endTime");
      expectSet("terminationReason", "terminationReason is set once the call has ended");
      break;
    case "not_connected":
      expectNull("startTime", "startTime is null if the call never reached in_progress");
      expectNull("endTime", "endTime is null when the call never connected");
      expectNull("duration", "duration is null if never connected");
      expectNull("recordingUrl", "recordingUrl is null if the call did not connect");
      expectSet(
        "terminationReason",
        "a call that is over says why (assumption: not_connected is final, so it has ended)",
        true,
      );
      break;
    case "error":
      expectSet("terminationReason", "a call that is over says why (assumption: error is final)", true);
      break;
  }
  // Whatever the state: a call that never reached in_progress never connected, and a connected one
  // that ended lasted from startTime to endTime.
  if (isNull(call.startTime) && call.status !== "scheduled") {
    for (const field of ["endTime", "duration", "recordingUrl"])
      expectNull(field, `startTime is null, so the call never connected and has no ${field}`);
  }
  const start = Date.parse(call.startTime);
  const end = Date.parse(call.endTime);
  if (!Number.isNaN(start) && !Number.isNaN(end)) {
    t.expect(end >= start, {
      pointer: at("endTime"),
      expected: `>= ${call.startTime}`,
      actual: call.endTime,
      message: "a call ends after it starts",
      exchange,
    });
    if (typeof call.duration === "number") {
      const seconds = (end - start) / 1000;
      t.expect(Math.abs(call.duration - seconds) <= 1, {
        pointer: at("duration"),
        expected: `${seconds} (endTime - startTime, in seconds)`,
        actual: call.duration,
        message: "duration is the seconds from startTime to endTime",
        exchange,
      });
    }
  }
  if (call.status !== "ended")
    expectNull("transcript", "transcript is null until the call has ended (assumption)", true);
  if (call.callType === "web" || call.callType === "chat")
    expectNull("phoneNumber", "web and chat calls use no phone number (assumption)", true);
  const created = Date.parse(call.createdAt);
  const updated = Date.parse(call.updatedAt);
  if (!Number.isNaN(created) && !Number.isNaN(updated)) {
    t.expect(updated >= created, {
      pointer: at("updatedAt"),
      expected: `>= createdAt ${call.createdAt}`,
      actual: call.updatedAt,
      message: "a record is not updated before it is created",
      exchange,
    });
  }
}

export const callRules = defineRules("calls", [
  ...paginationRules(cfg),
  orderRule(cfg, { knownIds: (f) => f.known.calls?.map((c) => c.callId) }),
  {
    id: "listCalls.call-invariants",
    operationId: "listCalls",
    level: "documented",
    readOnly: true,
    description: "Every listed call has the fields its status allows (2.9, section 3).",
    run: async (t) => {
      const result = await walk(t, cfg, {}, 10, 20);
      if (!result) return;
      for (const page of result.pages) page.data.forEach((call, i) => checkCall(t, call, `/data/${i}`, page.exchange));
    },
  },
  listMatchesStore(cfg, callStore),
  getMatchesStore(
    "getCall",
    callStore,
    (f) => (f.known.calls ?? []).map((c) => c.callId),
    (id) => `/v1/calls/${encodeURIComponent(id)}`,
  ),
  {
    id: "listCalls.status-filter",
    operationId: "listCalls",
    level: "documented",
    readOnly: true,
    description:
      "status=<each state>, walked over several pages, lists only calls in that state, newest first as without the filter; the states together list every call.",
    run: async (t) => {
      // On a live target calls move on while the five filters are walked (a scheduled call starts, one in
      // progress ends): then what the walks disagree on is that movement, not a finding. The unfiltered
      // list is read again at the end; if a call changed state in between, the check starts over once.
      for (let attempt = 1; ; attempt++) {
        const mark = t.failures.length;
        const all = await walk(t, cfg, {}, 10, 20);
        const stored = await t.fixtures.control?.listRecords("calls");
        let sum = 0;
        for (const status of CALL_STATUSES) {
          const result = await checkFilter(t, cfg, { status }, (c) => c.status === status, `${status} calls`, {
            unfiltered: all?.items.map(cfg.idOf),
            stored,
            size: 2,
          });
          if (result) sum += result.total;
        }
        if (all) t.expectEqual(sum, all.total, "/totalCount", "the five status filters together count every call");
        if (t.failures.length === mark || !movedOn(all?.items ?? [], (await walk(t, cfg, {}, 10, 20))?.items ?? []))
          return;
        t.failures.splice(mark);
        if (attempt === 2)
          return t.inconclusive(
            "calls changed state while the five filters were walked, twice: a live target moved under the check",
          );
      }
    },
  },
  {
    id: "listCalls.invalid-status",
    operationId: "listCalls",
    level: "documented",
    readOnly: true,
    description: "A status outside the five states answers 400.",
    run: async (t) => {
      const ex = await t.call("listCalls", { method: "GET", path: cfg.path, query: { status: "finished" } });
      if (!t.expectStatus(ex, 400)) return;
      t.expect(typeof obj(ex).validationErrors?.status === "string", {
        pointer: "/validationErrors/status",
        expected: "a message",
        actual: obj(ex).validationErrors,
        message: "validationErrors names status (assumption)",
        assumed: true,
      });
    },
  },
  {
    id: "getCall.matches-list",
    operationId: "getCall",
    level: "documented",
    readOnly: true,
    description: "E11 returns the call the list shows, in the same shape.",
    run: async (t) => {
      const page = await fetchPage(t, cfg, { size: 5 });
      if (page.data.length === 0) return t.skip("the target lists no call");
      for (const listed of page.data) {
        const ex = await t.call("getCall", { method: "GET", path: `/v1/calls/${encodeURIComponent(listed.callId)}` });
        if (!t.expectStatus(ex, 200)) continue;
        const got = obj(ex);
        t.expectEqual(got.callId, listed.callId, "/callId", "E11 returns the call asked for");
        for (const field of ["callType", "createdAt", "agent"])
          t.expectEqual(got[field], listed[field], `/${field}`, `E11 and E10 agree on ${field}`);
        // A live call may move on between the two requests; compare everything only when it did not.
        if (got.status === listed.status && got.updatedAt === listed.updatedAt)
          t.expectEqual(got, listed, "", "E11 and E10 return the same record");
        checkCall(t, got, "", ex);
      }
    },
  },
  {
    id: "getCall.unknown-id",
    operationId: "getCall",
    level: "documented",
    readOnly: true,
    description: "An unknown callId answers 404 with the error body.",
    run: async (t) =>
      void t.expectStatus(await t.call("getCall", { method: "GET", path: `/v1/calls/${randomUUID()}` }), 404),
  },
]);
export { cfg as callsList };

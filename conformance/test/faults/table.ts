/**
 * The faults a real deployment of the platform could have, one per row, each played alone by the
 * fault proxy in front of the mock. `level` is the lowest level of the suite expected to catch it
 * (a fault caught at `documented` is caught at `assumed` too); `only` selects the rules that can see
 * it, so one row costs a fraction of a whole run (the measure script runs the whole suite instead).
 */
import { randomUUID } from "node:crypto";
import { DEFAULT_API_KEY } from "../../../mock-server/app.js";
import type { Level } from "../../lib/schemas.js";
import type { FaultHooks, ProxyContext, ProxyRequest, ProxyResponse } from "./proxy.js";
import {
  chainHooks,
  eachTimestamp,
  errorResponse,
  jsonResponse,
  mutate,
  mutateItems,
  on,
  parse,
  relist,
  requestJson,
  restatus,
  withJson,
  withRequestJson,
  type Json,
} from "./rewrite.js";

export interface Fault {
  id: string;
  description: string;
  level: Level;
  /** --only pattern: the rules able to see the fault. */
  only: string;
  hooks(): FaultHooks;
}

const fault = (
  id: string,
  level: Level,
  description: string,
  hooks: () => FaultHooks,
  only = id.split(".")[0],
): Fault => ({ id, level, description, hooks, only });

const shiftIso = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();
const E164 = /^\+[1-9]\d{1,14}$/;
const INTEGRATION_OPS = ["createIntegration", "getIntegration", "updateIntegration"];
/**
 * The E9 rules but the one that uploads 25 MB + 1 byte twice (half the cost of an E9 row): rows at
 * level assumed that rewrite what E9 accepts, or every 4xx, are caught by other E9 rules; the row
 * about the 413 itself (createKnowledgeBase.413-as-400) runs that rule alone.
 */
const KB_BUT_25_MB = "/createKnowledgeBase\\.(?!file-too-large$)/";

/** Answers requests that arrive with a key the mock refuses (or none) as if they had the last good key. */
function acceptAnyKey(onlyWithout: boolean): FaultHooks {
  return {
    response: (req, res, ctx) => {
      if (!req.operationId || res.status !== 401 || !ctx.goodKey) return undefined;
      if (onlyWithout && req.headers["x-api-key"]) return undefined;
      return ctx.forward({ ...req, headers: { ...req.headers, "x-api-key": ctx.goodKey } });
    },
  };
}

/**
 * Tenancy faults: the keys of the workspaces the control plane makes, in order (the run's own first,
 * then the neighbour's and read-only ones), handed to `fn` with each API response.
 */
function withWorkspaceKeys(
  fn: (keys: string[], req: ProxyRequest, res: ProxyResponse, ctx: ProxyContext) => Promise<ProxyResponse | undefined>,
): FaultHooks {
  return {
    response: (req, res, ctx) => {
      const keys = (ctx.memory.get("keys") ?? []) as string[];
      if (req.path === "/__mock/workspaces" && res.status === 201)
        return void ctx.memory.set("keys", [...keys, parse(res)?.apiKey]);
      return fn(keys, req, res, ctx);
    },
  };
}

/** The multipart `name` field of an E9 request, read the crude way a test double may. */
const NAME_FIELD = /(name="name"\r\n\r\n)([^\r]*)/;

export const faults: Fault[] = [
  // Envelope: content type and body of every response.
  fault("listAgents.content-type-text-plain", "documented", "JSON bodies served as text/plain", () =>
    on("listAgents", {
      response: (_q, res) => ({ ...res, headers: { ...res.headers, "content-type": "text/plain" } }),
    }),
  ),
  fault(
    "getIntegration.content-type-missing",
    "documented",
    "no Content-Type on 200",
    () =>
      on("getIntegration", {
        response: (_q, res) => {
          const { "content-type": _, ...headers } = res.headers;
          return { ...res, headers };
        },
      }),
    "Integration",
  ),
  fault(
    "errors.problem-json",
    "documented",
    "errors as application/problem+json",
    () => ({
      response: (req, res) =>
        req.operationId && res.status >= 400
          ? { ...res, headers: { ...res.headers, "content-type": "application/problem+json" } }
          : undefined,
    }),
    "getCall",
  ),
  fault("listWebhooks.html-400", "documented", "a gateway answers 400 with an HTML page", () =>
    on("listWebhooks", {
      response: (_q, res) =>
        res.status === 400
          ? {
              status: 400,
              headers: { "content-type": "text/html" },
              body: Buffer.from("<html><body><h1>400 Bad Request</h1></body></html>"),
            }
          : undefined,
    }),
  ),

  // Timestamps (section 1.3: ISO 8601 in UTC).
  fault("listCalls.timestamps-without-zone", "documented", "call timestamps without Z", () =>
    mutate("listCalls", 200, (b) => eachTimestamp(b, (iso) => iso.replace(/Z$/, ""))),
  ),
  fault(
    "updateIntegration.timestamps-with-offset",
    "documented",
    "integration timestamps with a +02:00 offset",
    () =>
      mutate(INTEGRATION_OPS, "2xx", (b) =>
        eachTimestamp(b, (iso) => shiftIso(iso, 2 * 3600_000).replace("Z", "+02:00")),
      ),
    "Integration",
  ),
  fault("listTestRuns.timestamps-not-iso", "documented", "createdDate in RFC 1123 form", () =>
    mutateItems("listTestRuns", (r) => void (r.createdDate = new Date(r.createdDate).toUTCString())),
  ),
  fault("createChat.timestamps-epoch", "documented", "createdAt as epoch milliseconds", () =>
    mutate("createChat", 200, (b) => void (b.createdAt = Date.parse(b.createdAt))),
  ),
  fault(
    "createIntegration.local-time-as-utc",
    "documented",
    "local time (UTC+2) written with a Z",
    () => mutate(INTEGRATION_OPS, "2xx", (b) => eachTimestamp(b, (iso) => shiftIso(iso, 2 * 3600_000))),
    "Integration",
  ),
  fault(
    "errors.timestamp-unset",
    "documented",
    "error timestamp left at the epoch",
    () => ({
      response: (req, res) => {
        const b = parse(res);
        return req.operationId && res.status >= 400 && b
          ? withJson(res, { ...b, timestamp: "1970-01-01T00:00:00.000Z" })
          : undefined;
      },
    }),
    "getCall",
  ),

  // The 2.2 error body.
  fault(
    "errors.message-missing",
    "documented",
    "error body without message",
    () => mutate("getQaRule", 404, (b) => void delete b.message),
    "getQaRule",
  ),
  fault(
    "errors.status-as-string",
    "documented",
    "error status as a string",
    () => mutate("listCalls", 400, (b) => void (b.status = String(b.status))),
    "listCalls",
  ),
  fault(
    "errors.status-mismatch",
    "documented",
    "404 whose body says 500",
    () => mutate("getIntegration", 404, (b) => void (b.status = 500)),
    "getIntegration",
  ),
  fault(
    "errors.path-with-query",
    "documented",
    "error path carries the query string",
    () => mutate("listAgents", 400, (b, req) => void (b.path = `${req.path}?${req.query}`)),
    "listAgents",
  ),
  fault(
    "errors.path-without-prefix",
    "documented",
    "a gateway strips /v1 from the error path",
    () => mutate("getCall", 404, (b) => void (b.path = b.path.replace(/^\/v1/, ""))),
    "getCall",
  ),
  fault(
    "errors.error-as-code",
    "documented",
    "error is a code (NOT_FOUND), not the status text",
    () => mutate("deleteQaRule", 404, (b) => void (b.error = "NOT_FOUND")),
    "deleteQaRule",
  ),
  fault(
    "errors.error-text-wrong",
    "assumed",
    "every 4xx says Bad Request",
    () => mutate("createKnowledgeBase", "4xx", (b) => void (b.error = "Bad Request")),
    KB_BUT_25_MB,
  ),
  fault(
    "errors.validation-errors-array",
    "documented",
    "validationErrors as a list of {field, message}",
    () =>
      mutate(
        "listTestRuns",
        400,
        (b) =>
          void (b.validationErrors = Object.entries(b.validationErrors ?? { page: "bad" }).map(([field, message]) => ({
            field,
            message,
          }))),
      ),
    "listTestRuns",
  ),
  fault(
    "errors.validation-errors-missing",
    "assumed",
    "400 without validationErrors",
    () => mutate("listWebhooks", 400, (b) => void delete b.validationErrors),
    "listWebhooks",
  ),
  fault(
    "errors.validation-errors-keyed-wrong",
    "assumed",
    "validationErrors keyed query.<name>",
    () =>
      mutate(
        "listPhoneNumbers",
        400,
        (b) =>
          void (b.validationErrors = Object.fromEntries(
            Object.entries(b.validationErrors ?? {}).map(([k, v]) => [`query.${k}`, v]),
          )),
      ),
    "listPhoneNumbers",
  ),
  fault(
    "errors.extra-property",
    "assumed",
    "error bodies carry a traceId",
    () => mutate("listAgents", "4xx", (b) => void (b.traceId = "abc123")),
    "listAgents",
  ),
  fault(
    "errors.empty-404",
    "documented",
    "404 with an empty body",
    () =>
      on("getBatchRun", {
        response: (_q, res) => (res.status === 404 ? { status: 404, headers: {}, body: Buffer.alloc(0) } : undefined),
      }),
    "getBatchRun",
  ),

  // Authentication (section 5).
  fault(
    "auth.401-as-403",
    "documented",
    "a missing or wrong key answers 403",
    () => ({
      response: (req, res) => {
        const b = parse(res);
        return req.operationId && res.status === 401
          ? withJson(res, { ...b, status: 403, error: "Forbidden" }, { status: 403 })
          : undefined;
      },
    }),
    "listCalls",
  ),
  fault("auth.wrong-key-accepted", "documented", "any key is accepted", () => acceptAnyKey(false), "listAgents"),
  fault(
    "auth.missing-key-accepted",
    "documented",
    "a request without a key is served",
    () => acceptAnyKey(true),
    "createIntegration",
  ),
  fault(
    "auth.401-bare-body",
    "documented",
    "401 body is {message} only",
    () => ({
      response: (req, res) =>
        req.operationId && res.status === 401 ? jsonResponse(401, { message: "Unauthorized" }) : undefined,
    }),
    "listPhoneNumbers",
  ),

  // Pagination wrapper (2.1, section 8).
  fault("listCalls.total-pages-floor", "documented", "totalPages = floor(total / size)", () =>
    mutate("listCalls", 200, (b) => void (b.totalPages = Math.floor(b.totalCount / b.size))),
  ),
  fault("listAgents.has-next-on-last-page", "documented", "hasNext true on the last page", () =>
    mutate("listAgents", 200, (b) => void (b.hasNext = b.page < b.totalPages)),
  ),
  fault("listWebhooks.has-previous-on-first-page", "documented", "hasPrevious true on page 0", () =>
    mutate("listWebhooks", 200, (b) => void (b.hasPrevious = b.page >= 0)),
  ),
  fault("listTestRuns.page-not-echoed", "documented", "page always 0 in the wrapper", () =>
    mutate("listTestRuns", 200, (b) => void (b.page = 0)),
  ),
  fault("listPhoneNumbers.size-not-echoed", "documented", "size always 10 in the wrapper", () =>
    mutate("listPhoneNumbers", 200, (b) => void (b.size = 10)),
  ),
  fault("listCalls.data-longer-than-size", "documented", "one item more than size (look-ahead row not trimmed)", () =>
    relist("listCalls", { slice: (items, p, s) => items.slice(p * s, p * s + s + 1) }),
  ),
  fault("listAgents.pages-overlap", "documented", "offset = page * size - 1: an item repeated across pages", () =>
    relist("listAgents", { slice: (items, p, s) => items.slice(Math.max(0, p * s - 1), Math.max(0, p * s - 1) + s) }),
  ),
  fault("listWebhooks.oldest-first", "documented", "webhooks oldest first", () =>
    relist("listWebhooks", { items: (i) => [...i].reverse() }),
  ),
  fault("listCalls.oldest-first", "documented", "calls oldest first", () =>
    relist("listCalls", { items: (i) => [...i].reverse() }),
  ),
  fault("listTestRuns.oldest-first", "documented", "test runs oldest first", () =>
    relist("listTestRuns", { items: (i) => [...i].reverse() }),
  ),
  fault("listAgents.oldest-first", "assumed", "agents oldest first", () =>
    relist("listAgents", { items: (i) => [...i].reverse() }),
  ),
  fault("listPhoneNumbers.total-count-name", "documented", "totalCount in place of totalCounts", () =>
    mutate("listPhoneNumbers", 200, (b) => {
      b.totalCount = b.totalCounts;
      delete b.totalCounts;
    }),
  ),
  fault("listPhoneNumbers.both-totals", "documented", "totalCount next to totalCounts", () =>
    mutate("listPhoneNumbers", 200, (b) => void (b.totalCount = b.totalCounts)),
  ),
  fault("listCalls.total-counts-name", "documented", "totalCounts in place of totalCount", () =>
    mutate("listCalls", 200, (b) => {
      b.totalCounts = b.totalCount;
      delete b.totalCount;
    }),
  ),
  fault("listWebhooks.default-size-20", "documented", "size defaults to 20", () =>
    on("listWebhooks", {
      request: (req) => {
        if (req.query.has("size")) return undefined;
        const query = new URLSearchParams(req.query);
        query.set("size", "20");
        return { ...req, query };
      },
    }),
  ),
  fault("listTestRuns.one-based-pages", "documented", "pages counted from 1 (page 0 and 1 the same)", () =>
    relist("listTestRuns", { slice: (items, p, s) => items.slice(Math.max(0, p - 1) * s, Math.max(0, p - 1) * s + s) }),
  ),
  fault("listAgents.negative-page-clamped", "documented", "page=-1 served as page 0", () =>
    on("listAgents", {
      request: (req) => {
        if (!/^-/.test(req.query.get("page") ?? "")) return undefined;
        const query = new URLSearchParams(req.query);
        query.set("page", "0");
        return { ...req, query };
      },
    }),
  ),
  fault("listCalls.size-zero-defaulted", "documented", "size=0 served with the default size", () =>
    on("listCalls", {
      request: (req) => {
        if (req.query.get("size") !== "0") return undefined;
        const query = new URLSearchParams(req.query);
        query.delete("size");
        return { ...req, query };
      },
    }),
  ),
  fault("listPhoneNumbers.size-abc-500", "documented", "size=abc crashes with 500", () =>
    on("listPhoneNumbers", {
      request: (req) =>
        /^-?\d+$/.test(req.query.get("size") ?? "0") ? undefined : errorResponse(req, 500, "NumberFormatException"),
    }),
  ),
  fault("listWebhooks.past-end-clamped", "documented", "a page past the end serves the last page", () =>
    relist("listWebhooks", {
      slice: (items, p, s) => {
        const last = Math.max(0, Math.ceil(items.length / s) - 1);
        const q = Math.min(p, last);
        return items.slice(q * s, q * s + s);
      },
    }),
  ),
  fault("listTestRuns.total-is-page-length", "documented", "totalCount is the length of the page", () =>
    mutate("listTestRuns", 200, (b) => void (b.totalCount = b.data.length)),
  ),
  fault("listCalls.total-count-string", "documented", "totalCount as a string", () =>
    mutate("listCalls", 200, (b) => void (b.totalCount = String(b.totalCount))),
  ),

  // Filters.
  fault("listCalls.status-filter-ignored", "documented", "status filter ignored", () =>
    relist("listCalls", { ignore: ["status"] }),
  ),
  fault("listCalls.invalid-status-accepted", "documented", "an unknown status lists every call", () =>
    on("listCalls", {
      request: (req) => {
        const s = req.query.get("status");
        if (!s || ["scheduled", "in_progress", "ended", "not_connected", "error"].includes(s)) return undefined;
        const query = new URLSearchParams(req.query);
        query.delete("status");
        return { ...req, query };
      },
    }),
  ),
  fault(
    "listWebhooks.active-default-all",
    "documented",
    "without active, enabled and disabled webhooks are listed",
    () =>
      relist("listWebhooks", {
        also: (up) =>
          up.query.has("active")
            ? undefined
            : { ...up, query: new URLSearchParams({ ...Object.fromEntries(up.query), active: "false" }) },
      }),
  ),
  fault("listWebhooks.active-false-ignored", "documented", "active=false lists the enabled ones", () =>
    on("listWebhooks", {
      request: (req) => {
        if (req.query.get("active") !== "false") return undefined;
        const query = new URLSearchParams(req.query);
        query.set("active", "true");
        return { ...req, query };
      },
    }),
  ),
  fault("listWebhooks.agent-filter-ignored", "documented", "agentId filter ignored", () =>
    relist("listWebhooks", { ignore: ["agentId"] }),
  ),
  fault("listTestRuns.batch-filter-ignored", "documented", "batchId filter ignored", () =>
    relist("listTestRuns", { ignore: ["batchId"] }),
  ),
  fault("listTestRuns.agent-filter-ignored", "documented", "agentId filter ignored", () =>
    relist("listTestRuns", { ignore: ["agentId"] }),
  ),
  fault("listWebhooks.invalid-active-accepted", "documented", "active=maybe read as false", () =>
    on("listWebhooks", {
      request: (req) => {
        const a = req.query.get("active");
        if (a === null || a === "true" || a === "false") return undefined;
        const query = new URLSearchParams(req.query);
        query.set("active", "false");
        return { ...req, query };
      },
    }),
  ),

  // Agents (2.3).
  fault("listAgents.welcome-type-outside-enum", "documented", "welcomeMessageType 'text'", () =>
    mutateItems("listAgents", (a) => void (a.welcomeMessageType = "text")),
  ),
  fault("listAgents.background-sound-outside-enum", "documented", "backgroundSound 'rain'", () =>
    mutateItems("listAgents", (a) => void (a.agentSettings.backgroundSound = "rain")),
  ),
  fault("listAgents.setting-number-as-string", "documented", "remindersLimit as a string", () =>
    mutateItems("listAgents", (a) => void (a.agentSettings.remindersLimit = String(a.agentSettings.remindersLimit))),
  ),
  fault("listAgents.int-as-float", "documented", "maxCallDuration 60.5", () =>
    mutateItems("listAgents", (a) => void (a.agentSettings.maxCallDuration += 0.5)),
  ),
  fault("listAgents.tools-null", "documented", "tools null", () =>
    mutateItems("listAgents", (a) => void (a.tools = null)),
  ),
  fault("listAgents.name-dropped", "documented", "agentName missing", () =>
    mutateItems("listAgents", (a) => void delete a.agentName),
  ),
  fault("listAgents.extra-property", "assumed", "agents carry an undocumented createdBy", () =>
    mutateItems("listAgents", (a) => void (a.createdBy = "system")),
  ),
  fault("listAgents.flag-as-string", "documented", "aiStartsConversation as a string", () =>
    mutateItems("listAgents", (a) => void (a.agentSettings.aiStartsConversation = "yes")),
  ),

  // Calls (2.9, section 3).
  fault("listCalls.status-outside-enum", "documented", "status 'completed' for ended calls", () =>
    mutateItems("listCalls", (c) => void (c.status === "ended" && (c.status = "completed"))),
  ),
  fault("listCalls.termination-outside-enum", "documented", "terminationReason 'hangup'", () =>
    mutateItems(
      "listCalls",
      (c) => void (c.terminationReason === "user_ended_call" && (c.terminationReason = "hangup")),
    ),
  ),
  fault("listCalls.duration-as-string", "documented", "duration as a string", () =>
    mutateItems("listCalls", (c) => void (c.duration !== null && (c.duration = String(c.duration)))),
  ),
  fault("listCalls.end-before-start", "documented", "startTime and endTime swapped", () =>
    mutateItems("listCalls", (c) => void (c.endTime && ([c.startTime, c.endTime] = [c.endTime, c.startTime]))),
  ),
  fault("listCalls.duration-in-ms", "documented", "duration in milliseconds", () =>
    mutateItems("listCalls", (c) => void (typeof c.duration === "number" && (c.duration *= 1000))),
  ),
  fault("listCalls.termination-while-in-progress", "documented", "terminationReason on an in_progress call", () =>
    mutateItems("listCalls", (c) => void (c.status === "in_progress" && (c.terminationReason = "user_ended_call"))),
  ),
  fault("listCalls.recording-on-not-connected", "documented", "recordingUrl on a not_connected call", () =>
    mutateItems(
      "listCalls",
      (c) => void (c.status === "not_connected" && (c.recordingUrl = "https://recordings.example.com/x.mp3")),
    ),
  ),
  fault("listCalls.start-on-scheduled", "documented", "startTime on a scheduled call", () =>
    mutateItems("listCalls", (c) => void (c.status === "scheduled" && (c.startTime = c.createdAt))),
  ),
  fault("listCalls.call-type-outside-enum", "documented", "callType 'phone'", () =>
    mutateItems("listCalls", (c) => void (c.callType === "outbound" && (c.callType = "phone"))),
  ),
  fault("listCalls.embedded-number-not-e164", "documented", "embedded phone number formatted for display", () =>
    mutateItems(
      "listCalls",
      (c) =>
        void (
          c.phoneNumber &&
          (c.phoneNumber.sipPhoneNumber = c.phoneNumber.sipPhoneNumber.replace(
            /^\+1(\d{3})(\d{3})(\d+)$/,
            "($1) $2-$3",
          ))
        ),
    ),
  ),
  fault("listCalls.duration-on-in-progress", "assumed", "a running duration on in_progress calls", () =>
    mutateItems("listCalls", (c) => void (c.status === "in_progress" && (c.duration = 42))),
  ),
  fault("getCall.cache-ignores-id", "documented", "E11 serves the first call asked for, whatever the id", () =>
    on("getCall", {
      request: (req, ctx) => {
        const first = ctx.memory.get("first") as string | undefined;
        if (!first) {
          ctx.memory.set("first", req.params.callId);
          return undefined;
        }
        return { ...req, path: `/v1/calls/${encodeURIComponent(first)}` };
      },
    }),
  ),
  fault("getCall.unknown-as-200-null", "documented", "unknown call answers 200 null", () =>
    on("getCall", { response: (_q, res) => (res.status === 404 ? jsonResponse(200, null) : undefined) }),
  ),

  // Phone numbers (2.10, E14, E15).
  fault("listPhoneNumbers.provider-outside-enum", "assumed", "provider 'twilio'", () =>
    mutateItems("listPhoneNumbers", (p) => void (p.provider = "twilio")),
  ),
  fault("listPhoneNumbers.number-without-plus", "documented", "sipPhoneNumber without the +", () =>
    mutateItems("listPhoneNumbers", (p) => void (p.sipPhoneNumber = p.sipPhoneNumber.replace(/^\+/, ""))),
  ),
  fault("listPhoneNumbers.active-as-string", "documented", "active as a string", () =>
    mutateItems("listPhoneNumbers", (p) => void (p.active = String(p.active))),
  ),
  fault(
    "updatePhoneNumber.not-persisted",
    "documented",
    "E15 answers the change but does not keep it",
    () =>
      on("updatePhoneNumber", {
        response: async (req, res, ctx) => {
          if (res.status !== 200) return undefined;
          const before = ctx.memory.get(req.params.phoneNumber) as Json;
          if (before)
            await ctx.forward({
              ...req,
              query: new URLSearchParams(),
              body: Buffer.from(
                JSON.stringify({
                  friendlyName: before.friendlyName ?? "",
                  ...(before.terminationSipURI && { terminationSipUri: before.terminationSipURI }),
                }),
              ),
            });
          return undefined;
        },
        request: async (req, ctx) => {
          if (ctx.memory.has(req.params.phoneNumber)) return undefined;
          const list = parse(
            await ctx.forward({
              ...req,
              method: "GET",
              path: "/v1/phone-number",
              query: new URLSearchParams({ size: "100000" }),
              body: Buffer.alloc(0),
              operationId: "listPhoneNumbers",
            }),
          );
          const found = list?.data?.find((p: Json) => p.sipPhoneNumber === req.params.phoneNumber);
          if (found) ctx.memory.set(req.params.phoneNumber, found);
          return undefined;
        },
      }),
    "PhoneNumber",
  ),
  fault(
    "updatePhoneNumber.trunk-password-echoed",
    "documented",
    "E15 echoes trunkPassword",
    () =>
      mutate("updatePhoneNumber", 200, (b, req) => {
        const sent = requestJson(req);
        if (sent?.trunkPassword)
          Object.assign(b, { trunkUsername: sent.trunkUsername, trunkPassword: sent.trunkPassword });
      }),
    "PhoneNumber",
  ),
  fault(
    "updatePhoneNumber.non-e164-path-not-validated",
    "assumed",
    "a path that is not E.164 is looked up (404) instead of rejected",
    () =>
      on("updatePhoneNumber", {
        response: (req, res) =>
          res.status === 400 && !E164.test(req.params.phoneNumber)
            ? errorResponse(req, 404, "Phone number not found")
            : undefined,
      }),
  ),
  fault("updatePhoneNumber.clears-omitted", "assumed", "E15 replaces the record: omitted fields become null", () =>
    mutate("updatePhoneNumber", 200, (b, req) => {
      const sent = requestJson(req) ?? {};
      for (const f of ["friendlyName", "inboundAgentId", "outboundAgentId"]) if (!(f in sent)) b[f] = null;
    }),
  ),
  fault("updatePhoneNumber.unknown-upserts", "documented", "E15 on an unknown number creates it", () =>
    on("updatePhoneNumber", {
      response: (req, res) =>
        res.status === 404 && E164.test(req.params.phoneNumber)
          ? jsonResponse(200, {
              sipPhoneNumber: req.params.phoneNumber,
              provider: "byo",
              active: true,
              friendlyName: requestJson(req)?.friendlyName ?? null,
            })
          : undefined,
    }),
  ),
  fault("updatePhoneNumber.encoded-plus-not-decoded", "documented", "%2B in the path is not decoded: 404", () =>
    on("updatePhoneNumber", {
      request: (req) => (/%2B/i.test(req.path) ? errorResponse(req, 404, "Phone number not found") : undefined),
    }),
  ),

  // Webhooks (2.13, E17).
  fault("listWebhooks.events-as-array", "documented", "events as an array", () =>
    mutateItems("listWebhooks", (w) => void (w.events = String(w.events).split(","))),
  ),
  fault("listWebhooks.secret-missing", "documented", "secret left out", () =>
    mutateItems("listWebhooks", (w) => void delete w.secret),
  ),
  fault("listWebhooks.url-without-scheme", "documented", "url without its scheme", () =>
    mutateItems("listWebhooks", (w) => void (w.url = String(w.url).replace(/^https?:\/\//, ""))),
  ),

  // Integrations (2.4, 2.5, E2 to E5).
  fault("createIntegration.answers-200", "documented", "E2 answers 200", () => restatus("createIntegration", 201, 200)),
  fault(
    "createIntegration.description-not-stored",
    "documented",
    "E2 drops the description",
    () =>
      on("createIntegration", {
        request: (req) => {
          const b = requestJson(req);
          if (!b || typeof b !== "object" || !("description" in b) || !b.name) return undefined;
          const { description: _, ...rest } = b;
          return withRequestJson(req, rest);
        },
      }),
    "Integration",
  ),
  fault(
    "getIntegration.stale-cache",
    "documented",
    "E3 serves a cached copy from before E4",
    () =>
      on(["createIntegration", "getIntegration"], {
        response: (req, res, ctx) => {
          const body = parse(res);
          if (res.status >= 300 || !body?.integrationId) return undefined;
          const cached = ctx.memory.get(body.integrationId);
          if (!cached) return void ctx.memory.set(body.integrationId, body);
          return req.operationId === "getIntegration" ? withJson(res, cached) : undefined;
        },
      }),
    "Integration",
  ),
  fault(
    "updateIntegration.clears-omitted",
    "documented",
    "E4 replaces the record: omitted fields become null",
    () =>
      mutate("updateIntegration", 200, (b, req) => {
        const sent = requestJson(req) ?? {};
        for (const f of ["name", "description"]) if (!(f in sent)) b[f] = null;
      }),
    "Integration",
  ),
  fault(
    "updateIntegration.updated-at-frozen",
    "documented",
    "updatedAt never moves",
    () => mutate(INTEGRATION_OPS, "2xx", (b) => void (b.createdAt && (b.updatedAt = b.createdAt))),
    "Integration",
  ),
  fault(
    "updateIntegration.created-at-moves",
    "documented",
    "E4 moves createdAt with updatedAt",
    () => mutate("updateIntegration", 200, (b) => void (b.createdAt = b.updatedAt)),
    "Integration",
  ),
  fault("updateIntegration.unknown-upserts", "documented", "E4 on an unknown id answers 200", () =>
    on("updateIntegration", {
      response: (req, res) =>
        res.status === 404
          ? jsonResponse(200, {
              integrationId: req.params.integrationId,
              name: "x",
              description: requestJson(req)?.description ?? null,
              authentication: null,
              tools: [],
              createdAt: new Date().toISOString(),
              updatedAt: new Date().toISOString(),
            })
          : undefined,
    }),
  ),
  fault("getIntegration.unknown-as-400", "documented", "unknown id answers 400", () =>
    restatus("getIntegration", 404, 400),
  ),
  fault("createIntegrationAuth.answers-201", "assumed", "E5 answers 201", () =>
    restatus("createIntegrationAuth", 200, 201),
  ),
  fault(
    "createIntegrationAuth.token-echoed",
    "documented",
    "E3 shows the bearer token in the summary",
    () =>
      chainHooks(
        on("createIntegrationAuth", {
          request: (req, ctx) => void ctx.memory.set(req.params.integrationId, requestJson(req)),
        }),
        mutate("getIntegration", 200, (b, req, ctx) => {
          const sent = ctx.memory.get(req.params.integrationId) as Json;
          if (sent?.token && b.authentication) b.authentication.token = sent.token;
        }),
      ),
    "Integration",
  ),
  fault(
    "createIntegrationAuth.password-echoed",
    "documented",
    "E5 answers the BASIC password",
    () =>
      mutate("createIntegrationAuth", "2xx", (b, req) => {
        const sent = requestJson(req);
        if (sent?.password) b.password = sent.password;
      }),
    "Integration",
  ),
  fault(
    "createIntegrationAuth.api-key-value-echoed",
    "documented",
    "E3 shows apiKey with its value",
    () =>
      chainHooks(
        on("createIntegrationAuth", {
          request: (req, ctx) => void ctx.memory.set(req.params.integrationId, requestJson(req)),
        }),
        mutate("getIntegration", 200, (b, req, ctx) => {
          const sent = ctx.memory.get(req.params.integrationId) as Json;
          if (sent?.apiKey && b.authentication) b.authentication.apiKey = sent.apiKey;
        }),
      ),
    "Integration",
  ),
  fault(
    "createIntegrationAuth.type-lowercase",
    "documented",
    "authType written in lower case",
    () =>
      mutate(["getIntegration", "createIntegrationAuth"], 200, (b) => {
        const auth = b.authentication ?? b;
        if (typeof auth?.authType === "string") auth.authType = auth.authType.toLowerCase();
      }),
    "Integration",
  ),
  fault(
    "createIntegrationAuth.headers-dropped",
    "documented",
    "custom headers not kept",
    () => mutate("getIntegration", 200, (b) => void (b.authentication && (b.authentication.headers = []))),
    "Integration",
  ),
  fault(
    "createIntegrationAuth.credential-not-required",
    "documented",
    "BEARER without token, BASIC without password accepted",
    () =>
      on("createIntegrationAuth", {
        request: (req) => {
          const b = requestJson(req);
          if (b?.authType === "BEARER" && !b.token) return withRequestJson(req, { ...b, token: "filled-in" });
          if (b?.authType === "BASIC" && !b.password) return withRequestJson(req, { ...b, password: "filled-in" });
          if (b?.authType === "API_KEY" && !b.apiKey)
            return withRequestJson(req, { ...b, apiKey: { key: "k", value: "v", position: "header" } });
          return undefined;
        },
      }),
    "Integration",
  ),
  fault("createIntegrationAuth.unknown-as-500", "documented", "E5 on an unknown integration crashes", () =>
    restatus("createIntegrationAuth", 404, 500),
  ),

  // Simulations (2.7, E6 to E8).
  fault(
    "createBatchRun.answers-200",
    "documented",
    "E6 answers 200",
    () => restatus("createBatchRun", 201, 200),
    "BatchRun",
  ),
  fault(
    "createBatchRun.workspace-id-dropped",
    "documented",
    "E6 without workspaceId",
    () => mutate("createBatchRun", 201, (b) => void delete b.workspaceId),
    "BatchRun",
  ),
  fault(
    "getBatchRun.counters-inconsistent",
    "documented",
    "totalAttempts below successful + failed",
    () =>
      mutate(
        "getBatchRun",
        200,
        (b) =>
          void (
            b.successfulAttempts + b.failedAttempts > 0 &&
            (b.totalAttempts = b.successfulAttempts + b.failedAttempts - 1)
          ),
      ),
    "BatchRun",
  ),
  fault(
    "getBatchRun.counters-off-by-one",
    "assumed",
    "totalAttempts one above successful + failed",
    () => mutate("getBatchRun", 200, (b) => void (b.totalAttempts += 1)),
    "BatchRun",
  ),
  fault(
    "getBatchRun.created-date-differs",
    "documented",
    "E7 createdDate one second after E6's",
    () => mutate("getBatchRun", 200, (b) => void (b.createdDate = shiftIso(b.createdDate, 1000))),
    "BatchRun",
  ),
  fault(
    "getBatchRun.agent-filter-ignored",
    "assumed",
    "E7 ignores agentId",
    () =>
      on("getBatchRun", {
        request: (req) => {
          if (!req.query.has("agentId")) return undefined;
          const query = new URLSearchParams(req.query);
          query.delete("agentId");
          return { ...req, query };
        },
      }),
    "BatchRun",
  ),
  fault(
    "getBatchRun.test-cases-empty",
    "documented",
    "E7 without its test cases",
    () => mutate("getBatchRun", 200, (b) => void (b.testCases = [])),
    "BatchRun",
  ),
  fault(
    "createBatchRun.empty-test-cases-accepted",
    "assumed",
    "E6 with no test case runs the last batch's",
    () =>
      on("createBatchRun", {
        request: (req, ctx) => {
          const b = requestJson(req);
          if (Array.isArray(b?.testCases) && b.testCases.length > 0) return void ctx.memory.set("cases", b.testCases);
          const cases = ctx.memory.get("cases");
          return cases && b?.agentId ? withRequestJson(req, { ...b, testCases: cases }) : undefined;
        },
      }),
    "BatchRun",
  ),
  fault("listTestRuns.completed-before-created", "documented", "completedDate before createdDate", () =>
    mutateItems("listTestRuns", (r) => void (r.completedDate && (r.completedDate = shiftIso(r.createdDate, -60_000)))),
  ),
  fault("listTestRuns.is-successful-as-string", "documented", "isSuccessful as a string", () =>
    mutateItems("listTestRuns", (r) => void (r.isSuccessful !== null && (r.isSuccessful = String(r.isSuccessful)))),
  ),

  // Knowledge bases (2.8, E9): every rule that creates one rests on the name field's assumed label.
  fault(
    "createKnowledgeBase.sources-reversed",
    "assumed",
    "sources in reverse order",
    () => mutate("createKnowledgeBase", 201, (b) => void b.files.reverse()),
    KB_BUT_25_MB,
  ),
  fault(
    "createKnowledgeBase.kb-id-too-long",
    "assumed",
    "kbId of 65 characters or more",
    () => mutate("createKnowledgeBase", 201, (b) => void (b.kbId = String(b.kbId).padEnd(65, "0"))),
    KB_BUT_25_MB,
  ),
  fault(
    "createKnowledgeBase.long-name-accepted",
    "assumed",
    "a name over 512 characters is accepted",
    () =>
      on("createKnowledgeBase", {
        request: (req) => {
          const text = req.body.toString("latin1");
          const m = NAME_FIELD.exec(text);
          return m && m[2].length > 512
            ? { ...req, body: Buffer.from(text.replace(NAME_FIELD, `$1${m[2].slice(0, 512)}`), "latin1") }
            : undefined;
        },
      }),
    KB_BUT_25_MB,
  ),
  fault(
    "createKnowledgeBase.413-as-400",
    "assumed",
    "a file over 25 MB answers 400",
    () => restatus("createKnowledgeBase", 413, 400),
    // Only this rule sends a file over 25 MB: the others have no 413 to rewrite.
    "createKnowledgeBase.file-too-large",
  ),
  fault("createKnowledgeBase.415-as-400", "documented", "a disallowed file type answers 400", () =>
    restatus("createKnowledgeBase", 415, 400),
  ),
  fault(
    "createKnowledgeBase.415-accepted",
    "assumed",
    "a disallowed file type is accepted",
    () =>
      on("createKnowledgeBase", {
        response: (_q, res, ctx) => {
          if (res.status === 201) return void ctx.memory.set("last", parse(res));
          const last = ctx.memory.get("last") as Json;
          return res.status === 415 && last
            ? withJson(res, { ...last, kbId: randomUUID() }, { status: 201 })
            : undefined;
        },
      }),
    KB_BUT_25_MB,
  ),
  fault(
    "createKnowledgeBase.later-file-types-unchecked",
    "documented",
    "only the first file's type is checked: a PNG after a text file is stored",
    () =>
      on("createKnowledgeBase", {
        request: (req) => {
          const text = req.body.toString("latin1");
          const first = text.indexOf("filename=");
          const png = text.indexOf("Content-Type: image/png");
          if (first < 0 || png < 0 || png < text.indexOf("\r\n\r\n", first)) return undefined;
          // The deployment reads the later file as text: sent on as a .txt of the same part.
          const part = /filename="([^"]*)\.png"\r\nContent-Type: image\/png\r\n\r\n[\s\S]*?(?=\r\n--)/;
          return {
            ...req,
            body: Buffer.from(
              text.replace(part, 'filename="$1.txt"\r\nContent-Type: text/plain\r\n\r\nan image, read as text'),
              "latin1",
            ),
          };
        },
      }),
    "createKnowledgeBase.unsupported-type",
  ),
  fault(
    "createKnowledgeBase.second-large-file-refused",
    "assumed",
    "a second file over 1 MB is refused as an oversized form field (the mock's own bug, fixed in issue 12)",
    () =>
      on("createKnowledgeBase", {
        request: (req) => {
          const sizes = req.body
            .toString("latin1")
            .split(/\r\n--/)
            .filter((p) => /filename="/.test(p))
            .map((p) => p.length);
          return sizes.length > 1 && sizes.slice(1).some((n) => n > 1024 * 1024)
            ? errorResponse(req, 400, "A form field exceeds 1048576 bytes")
            : undefined;
        },
      }),
    "createKnowledgeBase.multiple-files",
  ),
  fault(
    "createKnowledgeBase.answers-200",
    "assumed",
    "E9 answers 200",
    () => restatus("createKnowledgeBase", 201, 200),
    KB_BUT_25_MB,
  ),
  fault(
    "createKnowledgeBase.name-truncated",
    "assumed",
    "names cut at 255 characters",
    () => mutate("createKnowledgeBase", 201, (b) => void (b.name = b.name.slice(0, 255))),
    KB_BUT_25_MB,
  ),
  fault(
    "createKnowledgeBase.document-ids-repeated",
    "assumed",
    "every source gets the same documentId",
    () =>
      mutate(
        "createKnowledgeBase",
        201,
        (b) => void b.files.forEach((f: Json) => (f.documentId = b.files[0].documentId)),
      ),
    KB_BUT_25_MB,
  ),

  // Chat (2.14, E16).
  fault("createChat.missing-agent-accepted", "documented", "E16 without agentId uses a default agent", () =>
    on("createChat", {
      request: (req, ctx) => {
        const b = requestJson(req);
        if (b?.agentId) return void ctx.memory.set("agent", b.agentId);
        const agent = ctx.memory.get("agent");
        return agent && b ? withRequestJson(req, { ...b, agentId: agent }) : undefined;
      },
    }),
  ),
  fault("createChat.unknown-agent-accepted", "assumed", "E16 with an unknown agent answers 200", () =>
    on("createChat", {
      response: (_q, res, ctx) => {
        if (res.status === 200) return void ctx.memory.set("last", parse(res));
        const last = ctx.memory.get("last") as Json;
        return res.status === 404 && last ? withJson(res, { ...last, id: randomUUID() }, { status: 200 }) : undefined;
      },
    }),
  ),
  fault("createChat.answers-201", "documented", "E16 answers 201", () => restatus("createChat", 200, 201)),
  fault("createChat.response-as-string", "documented", "response is the reply text", () =>
    mutate("createChat", 200, (b) => void (b.response = b.response?.[0]?.content?.join(" ") ?? "")),
  ),
  fault("createChat.status-outside-enum", "assumed", "status 'done'", () =>
    mutate("createChat", 200, (b) => void (b.status = "done")),
  ),
  fault("createChat.id-dropped", "documented", "the completion has no id", () =>
    mutate("createChat", 200, (b) => void delete b.id),
  ),

  // QA rules (2.12, E12, E13).
  fault("deleteQaRule.answers-200-with-body", "documented", "E13 answers 200 with the deleted rule", () =>
    on("deleteQaRule", {
      response: (req, res) =>
        res.status === 204 ? jsonResponse(200, { qaRuleId: req.params.qaRuleId, deleted: true }) : undefined,
    }),
  ),
  fault(
    "deleteQaRule.not-deleted",
    "documented",
    "E13 answers 204 and keeps the rule",
    () =>
      on("deleteQaRule", {
        request: async (req, ctx) => {
          const probe = await ctx.forward({ ...req, method: "GET", operationId: "getQaRule", body: Buffer.alloc(0) });
          return probe.status === 200 ? { status: 204, headers: {}, body: Buffer.alloc(0) } : undefined;
        },
      }),
    "QaRule",
  ),
  fault("deleteQaRule.unknown-as-204", "documented", "E13 on an unknown id answers 204", () =>
    on("deleteQaRule", {
      response: (_q, res) => (res.status === 404 ? { status: 204, headers: {}, body: Buffer.alloc(0) } : undefined),
    }),
  ),
  fault("getQaRule.unknown-as-500", "documented", "unknown QA rule crashes with 500", () =>
    restatus("getQaRule", 404, 500),
  ),
  fault("getQaRule.expected-value-as-string", "documented", "expectedValue as a string", () =>
    mutate("getQaRule", 200, (b) => void (b.expectedValue = String(b.expectedValue))),
  ),
  fault("getQaRule.agents-dropped", "documented", "the rule without its agents", () =>
    mutate("getQaRule", 200, (b) => void delete b.agents),
  ),

  // Tenancy: API keys belong to workspaces.
  fault(
    "isolation.id-lookup-ignores-workspace",
    "documented",
    "a record of another workspace is served by id",
    () =>
      withWorkspaceKeys(async (keys, req, res, ctx) => {
        if (!req.operationId?.startsWith("get") || res.status !== 404) return undefined;
        for (const key of keys) {
          const other = await ctx.forward({ ...req, headers: { ...req.headers, "x-api-key": key } });
          if (other.status === 200) return other;
        }
        return undefined;
      }),
    "other-workspace",
  ),
  fault(
    "isolation.write-through-other-key",
    "documented",
    "a write with another workspace's key reaches the record",
    () =>
      withWorkspaceKeys(async (keys, req, res, ctx) => {
        const key = req.headers["x-api-key"];
        if (!req.operationId || req.method === "GET" || res.status !== 404 || !key || keys.indexOf(key) < 1)
          return undefined;
        return ctx.forward({ ...req, headers: { ...req.headers, "x-api-key": keys[0] } });
      }),
    "/(updateIntegration|createIntegrationAuth|createChat)\\.other-workspace/",
  ),
  fault(
    "isolation.list-through-other-key",
    "documented",
    "a list with another workspace's key also shows the run's calls",
    () =>
      withWorkspaceKeys(async (keys, req, res, ctx) => {
        const key = req.headers["x-api-key"];
        if (req.operationId !== "listCalls" || res.status !== 200 || !key || keys.indexOf(key) < 1) return undefined;
        const mine = parse(await ctx.forward({ ...req, headers: { ...req.headers, "x-api-key": keys[0] } }));
        const body = parse(res);
        return withJson(res, { ...body, data: [...(mine?.data ?? []), ...body.data].slice(0, body.size) });
      }),
    "listCalls.other-workspace",
  ),
  fault(
    "listAgents.leaks-other-workspace",
    "documented",
    "the agent list includes the default workspace's agents",
    () => relist("listAgents", { also: (up) => ({ ...up, headers: { ...up.headers, "x-api-key": DEFAULT_API_KEY } }) }),
  ),
  fault(
    "auth.read-only-key-writes",
    "assumed",
    "a read-only key may write",
    () => ({
      response: (req, res, ctx) => {
        if (req.operationId && req.method !== "GET" && res.status < 300)
          return void ctx.memory.set("writer", req.headers["x-api-key"]);
        const writer = ctx.memory.get("writer") as string | undefined;
        return req.operationId && res.status === 403 && writer
          ? ctx.forward({ ...req, headers: { ...req.headers, "x-api-key": writer } })
          : undefined;
      },
    }),
    "read-only-key",
  ),

  // More of the wrapper: page arithmetic the way deployments get it wrong.
  fault("listPhoneNumbers.has-next-from-page-length", "documented", "hasNext = (data.length == size)", () =>
    mutate("listPhoneNumbers", 200, (b) => void (b.hasNext = b.data.length === b.size)),
  ),
  fault(
    "listCalls.total-ignores-filter",
    "documented",
    "with status, totalCount (and the pages) count every call",
    () =>
      on("listCalls", {
        response: async (req, res, ctx) => {
          const b = parse(res);
          if (res.status !== 200 || !req.query.has("status") || !b) return undefined;
          const all = parse(await ctx.forward({ ...req, query: new URLSearchParams({ size: "1" }) }));
          const totalPages = Math.ceil(all.totalCount / b.size);
          return withJson(res, { ...b, totalCount: all.totalCount, totalPages, hasNext: b.page + 1 < totalPages });
        },
      }),
  ),
  fault("listCalls.timestamps-space-separated", "documented", "timestamps with a space in place of the T", () =>
    mutate("listCalls", 200, (b) => eachTimestamp(b, (iso) => iso.replace("T", " "))),
  ),
  fault("createChat.cached-id", "documented", "every completion answers the first one's id", () =>
    mutate("createChat", 200, (b, _q, ctx) => {
      if (!ctx.memory.has("id")) ctx.memory.set("id", b.id);
      b.id = ctx.memory.get("id");
    }),
  ),
  fault(
    "createKnowledgeBase.cached-id",
    "assumed",
    "every knowledge base answers the first one's kbId",
    () =>
      mutate("createKnowledgeBase", 201, (b, _q, ctx) => {
        if (!ctx.memory.has("id")) ctx.memory.set("id", b.kbId);
        b.kbId = ctx.memory.get("id");
      }),
    KB_BUT_25_MB,
  ),
  fault(
    "createBatchRun.cached-id",
    "documented",
    "every batch run answers the first one's batchId",
    () =>
      mutate("createBatchRun", 201, (b, _q, ctx) => {
        if (!ctx.memory.has("id")) ctx.memory.set("id", b.batchId);
        b.batchId = ctx.memory.get("id");
      }),
    "BatchRun",
  ),
  fault("listWebhooks.empty-total-pages-one", "documented", "an empty list reports one page", () =>
    mutate("listWebhooks", 200, (b) => void (b.totalPages = Math.max(1, b.totalPages))),
  ),
  fault("listTestRuns.empty-data-null", "documented", "an empty page has data null", () =>
    mutate("listTestRuns", 200, (b) => void (b.data.length === 0 && (b.data = null))),
  ),

  // Values garbled where no schema can see (the mock's records are the truth).
  fault("listWebhooks.secret-masked", "documented", "secret masked as whsec_****", () =>
    mutateItems("listWebhooks", (w) => void (w.secret = "whsec_****")),
  ),
  fault("listWebhooks.workspace-id-wrong", "documented", "workspaceId of the default workspace", () =>
    mutateItems("listWebhooks", (w) => void (w.workspaceId = "default")),
  ),
  fault("getQaRule.description-truncated", "documented", "ruleDescription cut at 20 characters", () =>
    mutate(
      "getQaRule",
      200,
      (b) => void (typeof b.ruleDescription === "string" && (b.ruleDescription = b.ruleDescription.slice(0, 20))),
    ),
  ),
  fault("listCalls.agent-name-stale", "documented", "the call's agent reference names no one", () =>
    mutateItems("listCalls", (c) => void (c.agent.name = "Unknown agent")),
  ),
  fault("listPhoneNumbers.label-falls-back-to-number", "documented", "friendlyName replaced by the number", () =>
    mutateItems("listPhoneNumbers", (p) => void (p.friendlyName = p.sipPhoneNumber)),
  ),
  fault("listCalls.dynamic-variables-dropped", "documented", "dynamicVariables always null", () =>
    mutateItems("listCalls", (c) => void (c.dynamicVariables = null)),
  ),
  fault(
    "getIntegration.tool-url-encoded",
    "documented",
    "tool URL placeholders percent-encoded",
    () =>
      mutate(
        "getIntegration",
        200,
        (b) =>
          void (b.tools ?? []).forEach(
            (tool: Json) => (tool.url = String(tool.url).replace(/\{/g, "%7B").replace(/\}/g, "%7D")),
          ),
      ),
    "getIntegration",
  ),
  fault("listAgents.settings-webhook-events-as-string", "documented", "events a string inside agent settings too", () =>
    mutateItems(
      "listAgents",
      (a) => void (a.agentSettings.webhooks ?? []).forEach((w: Json) => (w.events = w.events.join(","))),
    ),
  ),
  fault("listTestRuns.mock-tool-data-dropped", "documented", "the embedded test case loses its mockToolData", () =>
    mutateItems("listTestRuns", (r) => void (r.testCase.mockToolData = [])),
  ),
  fault("listCalls.campaign-date-local", "documented", "campaign scheduledDate without a zone", () =>
    mutateItems(
      "listCalls",
      (c) => void (c.campaign && (c.campaign.scheduledDate = String(c.campaign.scheduledDate).replace(/Z$/, ""))),
    ),
  ),
  fault("listCalls.transcript-before-end", "assumed", "a transcript on calls that have not ended", () =>
    mutateItems("listCalls", (c) => void (c.status === "in_progress" && (c.transcript = "Agent: Hello"))),
  ),

  // Time: records and errors stamped with the wrong clock.
  fault(
    "createKnowledgeBase.updated-before-created",
    "assumed",
    "updatedAt a day before createdAt",
    () => mutate("createKnowledgeBase", 201, (b) => void (b.updatedAt = shiftIso(b.createdAt, -86_400_000))),
    KB_BUT_25_MB,
  ),
  fault("createChat.updated-before-created", "documented", "updatedAt before createdAt", () =>
    mutate("createChat", 200, (b) => void (b.updatedAt = shiftIso(b.createdAt, -60_000))),
  ),
  fault(
    "createBatchRun.created-date-stale",
    "documented",
    "createdDate a day old (a stale default)",
    () =>
      mutate(
        ["createBatchRun", "getBatchRun"],
        "2xx",
        (b) => void (b.createdDate = shiftIso(b.createdDate, -86_400_000)),
      ),
    "BatchRun",
  ),
  fault(
    "errors.timestamp-local-time",
    "documented",
    "error timestamps in local time (UTC+2) written with a Z",
    () => ({
      response: (req, res) => {
        const b = parse(res);
        return req.operationId && res.status >= 400 && b?.timestamp
          ? withJson(res, { ...b, timestamp: shiftIso(b.timestamp, 2 * 3600_000) })
          : undefined;
      },
    }),
    "listWebhooks",
  ),

  // Bodies a deployment should refuse.
  fault("updateIntegration.invalid-body-accepted", "assumed", "E4 drops what it cannot use and answers 200", () =>
    on("updateIntegration", {
      request: async (req, ctx) => {
        const b = requestJson(req);
        if (!b || typeof b !== "object") return undefined;
        const kept = Object.fromEntries(
          Object.entries(b).filter(
            ([k, v]) => ["name", "description"].includes(k) && typeof v === "string" && v !== "",
          ),
        );
        if (Object.keys(kept).length === Object.keys(b).length) return undefined;
        // Nothing usable left: the record is answered as it is.
        return Object.keys(kept).length > 0
          ? withRequestJson(req, kept)
          : ctx.forward({ ...req, method: "GET", body: Buffer.alloc(0) });
      },
    }),
  ),
  fault("updatePhoneNumber.wrong-type-accepted", "assumed", "E15 turns numbers and booleans into strings", () =>
    on("updatePhoneNumber", {
      request: (req) => {
        const b = requestJson(req);
        if (!b || typeof b !== "object" || Object.values(b).every((v) => typeof v === "string")) return undefined;
        return withRequestJson(req, Object.fromEntries(Object.entries(b).map(([k, v]) => [k, String(v)])));
      },
    }),
  ),

  // Encoding, messages, cross-checks between operations.
  fault(
    "createIntegration.body-in-latin1",
    "documented",
    "bodies encoded as ISO-8859-1, not UTF-8",
    () =>
      on(INTEGRATION_OPS, {
        response: (_q, res) =>
          res.status < 300
            ? {
                ...res,
                headers: { ...res.headers, "content-type": "application/json; charset=iso-8859-1" },
                body: Buffer.from(res.body.toString("utf8"), "latin1"),
              }
            : undefined,
      }),
    "Integration",
  ),
  fault(
    "errors.message-empty",
    "documented",
    "error message empty",
    () => mutate("listTestRuns", 400, (b) => void (b.message = "")),
    "listTestRuns",
  ),
  fault(
    "getBatchRun.counters-swapped",
    "documented",
    "successfulAttempts and failedAttempts swapped",
    () =>
      mutate(
        "getBatchRun",
        200,
        (b) => void ([b.successfulAttempts, b.failedAttempts] = [b.failedAttempts, b.successfulAttempts]),
      ),
    "BatchRun",
  ),
  fault(
    "createIntegrationAuth.summary-names-auth-id",
    "documented",
    "the auth summary's integrationId holds the authId",
    () =>
      mutate(
        "getIntegration",
        200,
        (b) => void (b.authentication && (b.authentication.integrationId = b.authentication.authId)),
      ),
    "Integration",
  ),
  fault("listCalls.duration-on-failed-dial", "documented", "a failed dial reports duration 0", () =>
    mutateItems("listCalls", (c) => void (c.status === "error" && c.startTime === null && (c.duration = 0))),
  ),
];

/** Ids must be unique: the report names faults by id. */
const seen = new Set<string>();
for (const f of faults) {
  if (seen.has(f.id)) throw new Error(`duplicate fault id ${f.id}`);
  seen.add(f.id);
}

export type { ProxyRequest };

/**
 * The model of the history checker: the in-memory mock (startMock, no store) in this process, with
 * the replicas' clock flags, where each owner's operations are replayed on a twin workspace right
 * after the real answer; and the comparison of a real answer with the twin's. What legitimately
 * differs is normalised, nothing else: date-time strings (two clocks), and identifiers (workspace ids,
 * keys, fault ids, ids drawn from a workspace's random sequence, which background work on the real
 * side may advance at other moments) are unified: the first time a twin id meets a real id at the
 * same place they are bound, and every later meeting must agree. Answers that depend on when
 * background work ran (calls progressing, batch runs, chats) are compared through projections that
 * do not depend on time; the rest is checked at quiescence.
 */
import { startMock } from "../../../mock-server/index.js";
import { CLOCK_SPEED, WEBHOOK_ATTEMPTS, WEBHOOK_BACKOFF_S, WEBHOOK_TIMEOUT_S } from "./topology.js";

export interface Answer {
  status: number;
  body: unknown;
}

export interface Model {
  url: string;
  send(method: string, path: string, body?: unknown, key?: string): Promise<Answer>;
  close(): Promise<void>;
}

export async function send(base: string, method: string, path: string, body?: unknown, key?: string): Promise<Answer> {
  const response = await fetch(base + path, {
    method,
    headers: { "content-type": "application/json", ...(key ? { "x-api-key": key } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text === "" ? null : JSON.parse(text);
  } catch {
    /* kept as text */
  }
  return { status: response.status, body: parsed };
}

export async function startModel(seed: number): Promise<Model> {
  const mock = await startMock({
    port: 0,
    host: "127.0.0.1",
    seed,
    clock: { mode: "real", speed: CLOCK_SPEED },
    webhooks: {
      backoffSeconds: WEBHOOK_BACKOFF_S,
      maxAttempts: WEBHOOK_ATTEMPTS,
      timeoutMs: WEBHOOK_TIMEOUT_S * 1000,
    },
    log: () => undefined,
  } as Parameters<typeof startMock>[0]);
  return {
    url: mock.url,
    send: (method, path, body, key) => send(mock.url, method, path, body, key),
    close: () => mock.close(),
  };
}

/** Twin id <-> real id, both ways: a binding, once made, must hold everywhere. */
export class Bindings {
  private readonly toReal = new Map<string, string>();
  private readonly toTwin = new Map<string, string>();

  bind(twin: string, real: string): boolean {
    const r = this.toReal.get(twin);
    const t = this.toTwin.get(real);
    if (r === undefined && t === undefined) {
      this.toReal.set(twin, real);
      this.toTwin.set(real, twin);
      return true;
    }
    return r === real && t === twin;
  }

  real(twin: string): string | undefined {
    return this.toReal.get(twin);
  }

  twin(real: string): string | undefined {
    return this.toTwin.get(real);
  }
}

const ISO = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/g;
/** Identifiers: UUIDs, workspace ids, API keys, fault ids, webhook secrets. */
const ID =
  /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|ws-\d+-[0-9a-f]+|mock_[0-9a-f]{32}|fault-\d+|whsec_[0-9a-f]+/g;
const ID_ONLY =
  /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|ws-\d+-[0-9a-f]+|mock_[0-9a-f]{32}|fault-\d+)$/;
/** In a seeded workspace, the strings still compared: ids, statuses, what the client wrote. */
const LOOSE_KEPT = new Set([
  "status",
  "workspaceId",
  "agentId",
  "callId",
  "batchId",
  "jobId",
  "testCaseId",
  "webhookId",
  "qaRuleId",
  "integrationId",
  "sipPhoneNumber",
  "message",
  "error",
]);
/** Numbers that are wall- or clock-time measures. */
const TIME_NUMBERS = new Set(["duration", "durationMs"]);

/** Where a twin and a real answer differ (empty: they agree), as JSON pointers with both values. */
export function unify(twin: unknown, real: unknown, ids: Bindings, at = "", loose = false): string[] {
  if (typeof twin === "string" && typeof real === "string") {
    // Loose (a seeded workspace): faker fills depend on when background work drew from its sequence.
    const key = at.slice(at.lastIndexOf("/") + 1);
    if (loose && !LOOSE_KEPT.has(key) && !ID_ONLY.test(twin) && !ID_ONLY.test(real)) return [];
    return unifyText(twin, real, ids, at);
  }
  if (Array.isArray(twin) && Array.isArray(real)) {
    // Loose: the arrays inside a faker-filled record (its tools, options, mock data) are fills too.
    if (loose && at !== "" && at !== "/data") return [];
    if (twin.length !== real.length) return [`${at || "/"}: ${twin.length} items in the model, ${real.length} real`];
    return twin.flatMap((t, i) => unify(t, real[i], ids, `${at}/${i}`, loose));
  }
  if (isObject(twin) && isObject(real)) {
    const keys = new Set([...Object.keys(twin), ...Object.keys(real)]);
    const out: string[] = [];
    for (const key of keys) {
      if (!(key in twin) || !(key in real)) {
        if (loose && !LOOSE_KEPT.has(key) && at !== "" && !/^\/(data\/)?\d+$/.test(at)) continue;
        out.push(`${at}/${key}: ${key in twin ? "missing in the real answer" : "not in the model"}`);
        continue;
      }
      if (TIME_NUMBERS.has(key) && typeof twin[key] === typeof real[key]) continue;
      if (loose && typeof twin[key] !== typeof real[key] && twin[key] !== null && real[key] !== null) {
        out.push(`${at}/${key}: model ${short(twin[key])}, real ${short(real[key])}`);
        continue;
      }
      if (loose && (typeof twin[key] === "number" || typeof twin[key] === "boolean")) continue;
      if (loose && (twin[key] === null) !== (real[key] === null) && !LOOSE_KEPT.has(key)) continue;
      out.push(...unify(twin[key], real[key], ids, `${at}/${key}`, loose));
    }
    return out;
  }
  if (twin === real) return [];
  return [`${at || "/"}: model ${short(twin)}, real ${short(real)}`];
}

function unifyText(twin: string, real: string, ids: Bindings, at: string): string[] {
  const t = twin.replace(ISO, "<time>").replace(/\/twin\//g, "/real/");
  const r = real.replace(ISO, "<time>");
  const tIds = t.match(ID) ?? [];
  const rIds = r.match(ID) ?? [];
  const differ = [`${at || "/"}: model ${short(twin)}, real ${short(real)}`];
  if (t.replace(ID, "<id>") !== r.replace(ID, "<id>") || tIds.length !== rIds.length) return differ;
  for (let i = 0; i < tIds.length; i++) if (!ids.bind(tIds[i], rIds[i])) return differ;
  return [];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function short(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 120 ? `${s.slice(0, 117)}...` : s;
}

type Projection = (body: unknown) => unknown;

const pick =
  (...keys: string[]) =>
  (record: unknown): unknown => {
    if (!isObject(record)) return record;
    return Object.fromEntries(keys.filter((k) => k in record).map((k) => [k, record[k]]));
  };

const agentId = (r: unknown) => (isObject(r) && isObject(r.agent) ? r.agent.agentId : undefined);
/** A call, without what moves on the clock (status, times, transcript, termination). */
const callShape = (r: unknown) => ({ ...(pick("callId", "callType")(r) as object), agentId: agentId(r) });
/** A call at quiescence: its final status too. */
const callFinal = (r: unknown) => ({ ...callShape(r), status: isObject(r) ? r.status : undefined });
/** A batch run without its counters (they move as its test runs complete). */
const batchShape = (r: unknown) => ({
  ...(pick("batchId", "createdDate")(r) as object),
  agentId: agentId(r),
  totalAttempts: isObject(r) ? r.totalAttempts : undefined,
});
const testRunShape = (r: unknown) => ({
  ...(pick("batchId", "jobId", "chatId")(r) as object),
  testCaseId: isObject(r) && isObject(r.testCase) ? r.testCase.testCaseId : undefined,
});
const testRunFinal = (r: unknown) => ({
  ...testRunShape(r),
  completed: isObject(r) ? r.completedDate !== null : undefined,
});
const batchFinal = (r: unknown) => {
  const b = isObject(r) ? r : {};
  return {
    ...batchShape(r),
    settled: Number(b.successfulAttempts) + Number(b.failedAttempts) === Number(b.totalAttempts),
  };
};

const listOf =
  (each: Projection): Projection =>
  (body) =>
    isObject(body) && Array.isArray(body.data) ? { ...body, data: body.data.map(each) } : body;
const arrayOf =
  (each: Projection): Projection =>
  (body) =>
    Array.isArray(body) ? body.map(each) : body;

/** Per operation label, what is compared while background work may be under way. */
const DURING: Record<string, Projection> = {
  // API keys come from the mock-wide sequence: the nth workspace's key is the same in the model and the store.
  "create workspace": (b) => (isObject(b) ? { workspaceId: b.workspaceId } : b),
  "list calls": listOf(callShape),
  "get call": callShape,
  "get batch run": batchShape,
  "list testRuns": listOf(testRunShape),
  // A chat's reply may continue an open conversation or start one, depending on when the last one ended.
  "create chat": (b) => (isObject(b) ? { status: b.status === undefined ? undefined : "present" } : b),
  "dump calls": arrayOf(callShape),
  "dump batchRuns": arrayOf(batchShape),
  "dump testRuns": arrayOf(testRunShape),
  "dump chats": arrayOf(pick("id")),
  "dump qaIssues": () => "not compared while calls run",
};

/** At quiescence: every scheduled thing is settled, so final states are compared too. */
const QUIESCENT: Record<string, Projection> = {
  "dump calls": arrayOf(callFinal),
  "dump batchRuns": arrayOf(batchFinal),
  "dump testRuns": arrayOf(testRunFinal),
  "dump chats": arrayOf(pick("id")),
};

export function project(label: string, body: unknown, quiescent = false): unknown {
  const projection = (quiescent ? QUIESCENT[label] : undefined) ?? DURING[label];
  return projection ? projection(body) : body;
}

/** Compares a real answer with the model's, through the projection of its label; [] when they agree. */
export function compareAnswers(
  label: string,
  twin: Answer,
  real: Answer,
  ids: Bindings,
  quiescent = false,
  loose = false,
): string[] {
  if (twin.status !== real.status) return [`status: model ${twin.status}, real ${real.status}`];
  return unify(project(label, twin.body, quiescent), project(label, real.body, quiescent), ids, "", loose);
}

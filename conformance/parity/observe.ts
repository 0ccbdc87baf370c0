/**
 * Sends parity's probes (probes.ts) to one target and turns the answers into observations
 * (shapes.ts). Every request goes through the target's Transport, as the suite's do: 429s and 503s are
 * waited out, gateway pages and resets sent again, and an answer the environment never let through is
 * an observation without a value (not compared), never a behaviour. A write whose fate the environment
 * hid is sent again (the probe starts over, as a rule does) up to --retries times.
 */
import { LIST_OPERATIONS } from "../../mock-server/core/exchange-rules/list-operations.js";
import { send, TargetUnreachable, type Exchange, type RequestSpec, type Target } from "../lib/http.js";
import { Inconclusive, WriteOutcomeUnknown } from "../transport/transport.js";
import { CREATES, invalidInputs, LISTS, type Found, type InvalidInput } from "./probes.js";
import { activeDefault, describeDefault, errorShape, orderOf, presence } from "./shapes.js";
import type { Json, LeftRecord, Observation, ObservedKind } from "./types.js";

export interface ProbeOptions {
  /** The target with its key, TLS options and its own Transport. */
  target: Target;
  /** A key of another workspace on the same target: the isolation probes. */
  secondApiKey?: string;
  /** Only requests that change nothing. */
  readOnly: boolean;
  /** Names what the probes create, so a person can find it. */
  runId: string;
  /** How often a probe whose write met an unknown fate starts over. */
  retries: number;
  signal?: AbortSignal;
}

export interface Probed {
  observations: Observation[];
  left: LeftRecord[];
  /** Probes sent (retries through the environment not counted). */
  probes: number;
}

/** Items of the first page: enough to show an order and the keys records carry. */
const FIRST_PAGE = 20;
/** Records read by id for the keys they carry. */
const BY_ID = 3;

type Answered = Exchange | { unanswered: string };

const isAnswered = (a: Answered): a is Exchange => !("unanswered" in a);
const body = (ex: Exchange): Record<string, any> =>
  ex.json && typeof ex.json === "object" && !Array.isArray(ex.json) ? (ex.json as Record<string, any>) : {};

class Prober {
  readonly observations: Observation[] = [];
  readonly left: LeftRecord[] = [];
  probes = 0;
  constructor(readonly options: ProbeOptions) {}

  /** One probe, its answer or why there was none. */
  async send(operationId: string, spec: RequestSpec): Promise<Answered> {
    const { target, retries, signal } = this.options;
    this.probes++;
    for (let attempt = 0; ; attempt++) {
      if (signal?.aborted) return { unanswered: "the run was interrupted" };
      try {
        return await send(target, spec, { signal });
      } catch (error) {
        if (error instanceof WriteOutcomeUnknown) {
          if (attempt < retries) continue;
          this.maybeLeft(operationId, error.message);
          return { unanswered: `no real answer through the environment: ${error.message}` };
        }
        if (error instanceof Inconclusive)
          return { unanswered: `no real answer through the environment: ${error.message}` };
        if (error instanceof TargetUnreachable) return { unanswered: `the target stopped answering: ${error.message}` };
        if (signal?.aborted) return { unanswered: "the run was interrupted" };
        throw error;
      }
    }
  }

  observe(operationId: string, kind: ObservedKind, probe: string, value: Observation["value"] | string): void {
    this.observations.push(
      typeof value === "string" ? { operationId, kind, probe, unobserved: value } : { operationId, kind, probe, value },
    );
  }

  /** A create the target accepted: the record stays (the reference deletes none of these). */
  created(operationId: string, ex: Exchange, why: string): void {
    const creates = CREATES[operationId];
    if (!creates || ex.status < 200 || ex.status > 299) return;
    const id = body(ex)[creates.idField];
    this.left.push({ kind: creates.kind, id: typeof id === "string" ? id : "(no id in the answer)", note: why });
  }

  private maybeLeft(operationId: string, why: string): void {
    const creates = CREATES[operationId];
    if (creates) this.left.push({ kind: creates.kind, id: "(unknown)", note: `may have been created: ${why}` });
  }
}

const why = (a: { unanswered: string } | Exchange) => ("unanswered" in a ? a.unanswered : `answered ${a.status}`);

/** The first page of each list: the keys its items and wrapper carry, its order, and ids for later probes. */
async function firstPages(p: Prober, found: Found): Promise<void> {
  for (const { operationId, path } of LISTS) {
    const ex = await p.send(operationId, { method: "GET", path, query: { page: 0, size: FIRST_PAGE } });
    const items =
      isAnswered(ex) && ex.status === 200 && Array.isArray(body(ex).data) ? (body(ex).data as any[]) : undefined;
    const orderField = LIST_OPERATIONS[operationId]?.order?.field;
    if (!items) {
      p.observe(operationId, "field", "items of the first page", why(ex));
      p.observe(operationId, "field", "the page wrapper", why(ex));
      if (orderField) p.observe(operationId, "order", `first page by ${orderField}`, why(ex));
      continue;
    }
    const wrapper = body(ex as Exchange);
    p.observe(operationId, "field", "the page wrapper", {
      records: 1,
      keys: Object.fromEntries(
        Object.keys(wrapper)
          .sort()
          .map((k) => [k, "always"]),
      ),
      parents: [],
    });
    p.observe(
      operationId,
      "field",
      "items of the first page",
      items.length > 0 ? (presence(items) as unknown as Observation["value"]) : "the first page is empty",
    );
    if (orderField) {
      const order = orderOf(items, orderField);
      p.observe(
        operationId,
        "order",
        `first page by ${orderField}`,
        order ? { order } : "fewer than two distinct creation timestamps on the first page",
      );
    }
    const ids = (field: string, nested?: string) =>
      [
        ...new Set(items.map((i) => (nested ? i?.[nested]?.[field] : i?.[field])).filter((v) => typeof v === "string")),
      ] as string[];
    if (operationId === "listCalls") found.callIds = ids("callId").slice(0, BY_ID);
    if (operationId === "listTestRuns") found.batchIds = ids("batchId").slice(0, BY_ID);
    if (operationId === "listAgents") found.agentIds = ids("agentId").slice(0, 1);
  }
}

/** What each list echoes for page and size when given neither; which webhooks it lists with `active` omitted. */
async function listDefaults(p: Prober): Promise<void> {
  for (const { operationId, path } of LISTS) {
    const ex = await p.send(operationId, { method: "GET", path });
    p.observe(
      operationId,
      "default",
      "no page or size",
      isAnswered(ex) && ex.status === 200
        ? { page: describeDefault(body(ex).page), size: describeDefault(body(ex).size) }
        : why(ex),
    );
  }
  const totals: number[] = [];
  for (const active of [undefined, true, false]) {
    const ex = await p.send("listWebhooks", { method: "GET", path: "/v1/webhooks", query: { size: 1, active } });
    const total = isAnswered(ex) && ex.status === 200 ? body(ex).totalCount : undefined;
    if (typeof total !== "number")
      return p.observe("listWebhooks", "default", "active omitted", `${why(ex)} (no totalCount)`);
    totals.push(total);
  }
  const active = activeDefault(totals[0], totals[1], totals[2]);
  p.observe(
    "listWebhooks",
    "default",
    "active omitted",
    active ? { lists: active } : "the workspace has no active or no inactive webhook: the totals cannot tell",
  );
}

/** E2 with the name only: what it defaults; the record it answers and E3 reads back carry which keys. */
async function integrationDefaults(p: Prober, found: Found): Promise<void> {
  const name = `parity ${p.options.runId} defaults`;
  const ex = await p.send("createIntegration", { method: "POST", path: "/v1/integrations", body: { name } });
  if (!isAnswered(ex) || ex.status !== 201) {
    p.observe("createIntegration", "default", "name only", why(ex));
    return;
  }
  p.created(
    "createIntegration",
    ex,
    "created by parity's defaults probe (name only); the reference has no way to delete an integration",
  );
  const created = body(ex);
  p.observe("createIntegration", "default", "name only", {
    description: describeDefault(created.description),
    authentication: describeDefault(created.authentication),
    tools: describeDefault(created.tools),
  });
  p.observe("createIntegration", "field", "the record created", presence([created]) as unknown as Observation["value"]);
  if (typeof created.integrationId !== "string") return;
  found.integrationId = created.integrationId;
  const read = await p.send("getIntegration", {
    method: "GET",
    path: `/v1/integrations/${encodeURIComponent(created.integrationId)}`,
  });
  p.observe(
    "getIntegration",
    "field",
    "records read by id",
    isAnswered(read) && read.status === 200 ? (presence([body(read)]) as unknown as Observation["value"]) : why(read),
  );
}

/** Calls and batch runs read by id: which keys a whole record carries. */
async function recordsById(p: Prober, found: Found): Promise<void> {
  const reads: [string, string[], (id: string) => string][] = [
    ["getCall", found.callIds, (id) => `/v1/calls/${encodeURIComponent(id)}`],
    ["getBatchRun", found.batchIds, (id) => `/v1/batch-runs/${encodeURIComponent(id)}`],
  ];
  for (const [operationId, ids, path] of reads) {
    const records: unknown[] = [];
    let last = "the first page of its list is empty";
    for (const id of ids) {
      const ex = await p.send(operationId, { method: "GET", path: path(id) });
      if (isAnswered(ex) && ex.status === 200) records.push(ex.json);
      else last = why(ex);
    }
    p.observe(
      operationId,
      "field",
      "records read by id",
      records.length > 0 ? (presence(records) as unknown as Observation["value"]) : last,
    );
  }
}

/** Records of the second key's workspace, found through its lists. */
async function otherWorkspace(p: Prober, key: string): Promise<NonNullable<Found["other"]>> {
  const first = async (operationId: string, path: string, field: string) => {
    const ex = await p.send(operationId, { method: "GET", path, query: { page: 0, size: 1 }, key });
    const item = isAnswered(ex) && ex.status === 200 ? body(ex).data?.[0] : undefined;
    return typeof item?.[field] === "string" ? (item[field] as string) : undefined;
  };
  return {
    callId: await first("listCalls", "/v1/calls", "callId"),
    batchId: await first("listTestRuns", "/v1/test-runs", "batchId"),
    phoneNumber: await first("listPhoneNumbers", "/v1/phone-number", "sipPhoneNumber"),
  };
}

const NEEDS: Record<NonNullable<InvalidInput["needs"]>, string> = {
  integration: "no integration of parity's own (E2 refused the defaults probe)",
  other: "the second key's workspace lists no such record",
};

/** One invalid input: its status, and the shape of the error answer. */
async function invalid(p: Prober, input: InvalidInput, found: Found): Promise<void> {
  if (input.needs === "other" && !p.options.secondApiKey)
    return p.observe(
      input.operationId,
      "status",
      input.label,
      "no second key (--second-api-key, --against-second-api-key)",
    );
  const spec = input.request(found);
  if (!spec) return p.observe(input.operationId, "status", input.label, input.needs ? NEEDS[input.needs] : "not sent");
  const ex = await p.send(input.operationId, spec);
  if (!isAnswered(ex)) return p.observe(input.operationId, "status", input.label, ex.unanswered);
  p.observe(input.operationId, "status", input.label, { status: ex.status });
  p.created(input.operationId, ex, `the target accepted parity's invalid input "${input.label}"`);
  if (ex.status >= 400)
    p.observe(
      input.operationId,
      "message",
      input.label,
      errorShape(ex.status, ex.json, ex.text, {
        path: ex.request.path,
        basePath: ex.request.basePath,
        field: input.field,
        id: input.id,
      }) as Record<string, Json>,
    );
}

/** Every probe, on one target. */
export async function probeTarget(options: ProbeOptions): Promise<Probed> {
  const p = new Prober(options);
  const found: Found = { runId: options.runId, callIds: [], batchIds: [], agentIds: [] };
  await firstPages(p, found);
  await listDefaults(p);
  if (!options.readOnly) await integrationDefaults(p, found);
  await recordsById(p, found);
  if (options.secondApiKey) found.other = await otherWorkspace(p, options.secondApiKey);
  for (const input of invalidInputs()) {
    if (input.writes && options.readOnly) continue;
    await invalid(p, input, found);
  }
  return { observations: p.observations, left: p.left, probes: p.probes };
}

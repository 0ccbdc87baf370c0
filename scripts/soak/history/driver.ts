/**
 * The clients of the history checker: C clients at once, each sending one request at a time to a
 * replica of the live list (never the one its previous request went to), recording every request and
 * answer in the history. Each client owns its workspaces and is their only writer; right after a real
 * answer, the owner replays the request on its twin workspace in the model and compares the answers.
 * Observers read other clients' integrations (register reads, checked in checks.ts). A mock-wide reset
 * and the check after a replica's restart run as barriers: every client pauses around them.
 */
import { createHash } from "node:crypto";
import type { Entry, History } from "./history.js";
import { type Answer, Bindings, compareAnswers, type Model, send } from "./model.js";
import type { Receiver } from "./receiver.js";
import type { Replica, Topology } from "./topology.js";
import type { Op } from "./workload.js";

const MAX_WORKSPACES = 3;
export const AGENT_A = "agent-a";
export const AGENT_B = "agent-b";
export const ABSENT = "<absent>";

interface Pair {
  real: string;
  twin: string;
}

export interface OwnedWorkspace {
  owner: number;
  real: { id: string; key: string };
  twin: { id: string; key: string };
  seed: number;
  empty: boolean;
  integrations: Pair[];
  qaRules: string[];
  phones: string[];
  calls: string[];
  batchRuns: Pair[];
  testCases: string[];
  /** An owner write whose outcome is unknown (killed replica): no longer compared with the model. */
  unresolved: boolean;
  /** Ids of records created by acknowledged writes, by collection (unresolved workspaces are checked on these). */
  acked: Map<string, Set<string>>;
  deleted: boolean;
  /** Webhook secrets by the receiver path of their webhook (the real one). */
  hooks: Map<string, string>;
  /**
   * Which twin id is which real id, in this workspace since its last reset. Per workspace: workspaces of
   * one seed draw the same ids, and a reset draws them again, while background work on the real side
   * may shift its sequence; a binding made elsewhere or before would not hold.
   */
  ids: Bindings;
}

export interface Figures {
  operations: Record<string, number>;
  requests: number;
  comparisons: number;
  registerReads: number;
  deletedKeyProbes: number;
  indeterminate: number;
  latenciesMs: number[];
}

export interface DriverContext {
  topology: Topology;
  model: Model;
  receiver: Receiver;
  ids: Bindings;
  history: History;
  figures: Figures;
  /** Distinguishes the ids of one run from another's (shrink runs reuse the replicas). */
  run: number;
  /** All clients' workspaces, live and gone (the end checks visit them). */
  workspaces: OwnedWorkspace[];
  totalOps: number;
  completedOps: number;
  inflight: number;
  gate: Promise<void> | null;
  /** Serialises barriers (a mock-wide reset, a check after a restart). */
  barrierChain: Promise<void>;
  /** Called after each completed op (the kill controller watches the count). */
  onProgress: () => void;
  /** The check made under a barrier after a restart (and at the end): set by run.ts. */
  afterRestart?: () => Promise<void>;
}

export function newFigures(): Figures {
  return {
    operations: {},
    requests: 0,
    comparisons: 0,
    registerReads: 0,
    deletedKeyProbes: 0,
    indeterminate: 0,
    latenciesMs: [],
  };
}

/** A deterministic UUID for the ids the checker chooses itself (calls, QA rules, webhooks, test cases). */
export function uuidOf(...parts: (string | number)[]): string {
  const h = createHash("sha256").update(parts.join("/")).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Runs `work` with every client paused (no op in flight), one barrier at a time. */
export async function barrier(ctx: DriverContext, work: () => Promise<void>): Promise<void> {
  const previous = ctx.barrierChain;
  let done: () => void = () => undefined;
  ctx.barrierChain = new Promise<void>((resolve) => (done = resolve));
  await previous;
  let release: () => void = () => undefined;
  ctx.gate = new Promise<void>((resolve) => (release = resolve));
  try {
    while (ctx.inflight > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await work();
  } finally {
    ctx.gate = null;
    release();
    done();
  }
}

interface Request {
  label: string;
  method: string;
  /** The real path, then the twin's (undefined: not replayed on the model). */
  path: string;
  twinPath?: string;
  body?: unknown;
  twinBody?: unknown;
  key?: string;
  twinKey?: string;
  workspace?: OwnedWorkspace;
  role: Entry["role"];
  replica?: Replica;
}

export class Client {
  private counter = 0;
  private readonly mine: OwnedWorkspace[] = [];

  constructor(
    readonly index: number,
    private readonly ctx: DriverContext,
    private readonly others: () => Client[],
  ) {}

  get workspaces(): OwnedWorkspace[] {
    return this.mine.filter((w) => !w.deleted);
  }

  /** The next replica: seeded offset from the previous one, so consecutive requests go to different replicas. */
  private replica(r: number): Replica {
    const live = this.ctx.topology.live();
    const start = live.findIndex((x) => x.name === this.lastName);
    const step = live.length > 1 ? 1 + (r % (live.length - 1)) : 0;
    const chosen = live[(Math.max(start, 0) + step) % live.length];
    this.lastName = chosen.name;
    return chosen;
  }

  private lastName = "";

  /** Sends one request to a replica, records it, and compares with the model when the workspace is modelled. */
  async request(req: Request, r: number): Promise<{ entry: Entry; real?: Answer; twin?: Answer }> {
    const { ctx } = this;
    const replica = req.replica ?? this.replica(r + this.counter++);
    const invoke = Date.now();
    let real: Answer | undefined;
    let failure: string | undefined;
    try {
      real = await send(replica.url, req.method, req.path, req.body, req.key);
    } catch (error) {
      failure = (error as Error).message;
    }
    const complete = Date.now();
    ctx.figures.requests++;
    const entry: Entry = {
      id: ctx.history.entries.length + 1,
      client: this.index,
      label: req.label,
      method: req.method,
      path: req.path,
      replica: replica.name,
      invoke,
      complete,
      status: real?.status ?? null,
      digest: real ? (JSON.stringify(real.body) ?? "").slice(0, 160) : `no answer: ${failure}`,
      workspace: req.workspace?.real.id,
      role: req.role,
    };
    ctx.history.entries.push(entry);
    if (!real) {
      // A replica killed with the request in flight: the outcome is unknown. Any other failure is an anomaly.
      if (replica.killedAt !== undefined || !replica.alive) {
        ctx.figures.indeterminate++;
        entry.note = "indeterminate: replica killed";
        if (req.workspace && req.method !== "GET" && req.role === "owner") req.workspace.unresolved = true;
      } else
        ctx.history.anomalies.push({
          kind: "network",
          message: `${req.method} ${req.path} to ${replica.name}: ${failure}`,
          entry: entry.id,
          workspace: entry.workspace,
          at: complete,
        });
      return { entry };
    }
    ctx.figures.latenciesMs.push(complete - invoke);
    if (real.status >= 500)
      ctx.history.anomalies.push({
        kind: "server-error",
        message: `${req.method} ${req.path} answered ${real.status}: ${entry.digest}`,
        entry: entry.id,
        workspace: entry.workspace,
        at: complete,
      });
    if (req.twinPath === undefined || req.workspace?.unresolved) return { entry, real };
    const twin = await send(ctx.model.url, req.method, req.twinPath, req.twinBody ?? req.body, req.twinKey);
    ctx.figures.comparisons++;
    // Faker fills draw from the workspace's sequence, which background work (chat ends, QA) also draws
    // from at moments that differ from the model's: their content is compared loosely (ids, statuses, shape).
    const diffs = compareAnswers(req.label, twin, real, req.workspace?.ids ?? ctx.ids, false, true);
    if (diffs.length > 0) {
      entry.note = `differs from the model: ${diffs.slice(0, 3).join("; ")}`;
      ctx.history.anomalies.push({
        kind: "differential",
        message: `${req.label} (${req.method} ${req.path}) differs from the model: ${diffs.slice(0, 4).join("; ")}`,
        entry: entry.id,
        workspace: entry.workspace,
        at: complete,
      });
    }
    return { entry, real, twin };
  }

  /** One owner request on a workspace: the same path on the real and the twin, with their own ids and keys. */
  private owner(
    w: OwnedWorkspace,
    label: string,
    method: string,
    path: (side: { ws: string; real: boolean }) => string,
    body: unknown,
    r: number,
    api: boolean,
    twinBody?: unknown,
  ) {
    return this.request(
      {
        label,
        method,
        path: path({ ws: w.real.id, real: true }),
        twinPath: path({ ws: w.twin.id, real: false }),
        body,
        twinBody,
        key: api ? w.real.key : undefined,
        twinKey: api ? w.twin.key : undefined,
        workspace: w,
        role: "owner",
      },
      r,
    );
  }

  private ack(w: OwnedWorkspace, collection: string, id: string): void {
    if (!w.acked.has(collection)) w.acked.set(collection, new Set());
    w.acked.get(collection)!.add(id);
  }

  private forget(w: OwnedWorkspace): void {
    w.integrations = [];
    w.qaRules = [];
    w.phones = [];
    w.calls = [];
    w.batchRuns = [];
    w.testCases = [];
    w.acked = new Map();
    w.hooks = new Map();
    w.ids = new Bindings();
  }

  /** Agents A (calls, chats, batch runs, webhook) and B (QA rules), a webhook to the receiver, two test cases. */
  async setup(w: OwnedWorkspace, r: number): Promise<void> {
    const n = this.counter++;
    for (const agentId of [AGENT_A, AGENT_B]) {
      const { real } = await this.owner(
        w,
        "setup agents",
        "POST",
        ({ ws }) => `/__mock/workspaces/${ws}/agents`,
        { agentId },
        r,
        false,
      );
      if (real?.status === 201) this.ack(w, "agents", agentId);
    }
    const webhookId = uuidOf(this.ctx.run, this.index, n, "webhook");
    const path = `/real/${this.ctx.run}/${this.index}/${n}`;
    const hook = (side: "real" | "twin") => ({
      webhookId,
      agentId: AGENT_A,
      url: `${this.ctx.receiver.url}/${side}/${this.ctx.run}/${this.index}/${n}`,
      events: "conversation_started,conversation_ended",
      active: true,
    });
    const made = await this.owner(
      w,
      "setup webhooks",
      "POST",
      ({ ws }) => `/__mock/workspaces/${ws}/webhooks`,
      hook("real"),
      r,
      false,
      hook("twin"),
    );
    if (made.real?.status === 201) {
      this.ack(w, "webhooks", webhookId);
      w.hooks.set(path, String((made.real.body as { secret?: string }).secret));
    }
    for (const c of [0, 1]) {
      const testCaseId = uuidOf(this.ctx.run, this.index, n, "case", c);
      const { real } = await this.owner(
        w,
        "setup testCases",
        "POST",
        ({ ws }) => `/__mock/workspaces/${ws}/testCases`,
        { testCaseId, agent: { agentId: AGENT_A }, attempt: 1 },
        r,
        false,
      );
      if (real?.status === 201) {
        w.testCases.push(testCaseId);
        this.ack(w, "testCases", testCaseId);
      }
    }
  }

  private pick<T>(list: T[], i: number): T | undefined {
    return list.length === 0 ? undefined : list[i % list.length];
  }

  /** Runs one abstract op of the workload. */
  async run(op: Op): Promise<void> {
    const { ctx } = this;
    while (ctx.gate) await ctx.gate;
    if (op.k === "mockReset") {
      ctx.figures.operations[op.k] = (ctx.figures.operations[op.k] ?? 0) + 1;
      await barrier(ctx, () => this.mockReset(op.r));
      return;
    }
    ctx.inflight++;
    try {
      const kind = await this.dispatch(op);
      ctx.figures.operations[kind] = (ctx.figures.operations[kind] ?? 0) + 1;
    } finally {
      ctx.inflight--;
      ctx.completedOps++;
      ctx.onProgress();
    }
  }

  private async dispatch(op: Op): Promise<string> {
    const live = this.workspaces;
    if (op.k === "createWorkspace" || live.length === 0) {
      if (live.length >= MAX_WORKSPACES) return this.dispatch({ k: "list", w: op.r, what: "agents", r: op.r });
      const seed = op.k === "createWorkspace" ? op.seed : op.r;
      const empty = op.k === "createWorkspace" ? op.empty : true;
      await this.createWorkspace(seed, empty, op.r);
      return "createWorkspace";
    }
    if (op.k === "observe") return this.observe(op.other, op.i, op.r);
    if (op.k === "advance") {
      const w = op.w === null ? undefined : this.pick(live, op.w);
      const body = (ws?: string) => (ws ? { seconds: op.seconds, workspaceId: ws } : { seconds: op.seconds });
      if (w)
        await this.owner(
          w,
          "advance clock",
          "POST",
          () => "/__mock/clock/advance",
          body(w.real.id),
          op.r,
          false,
          body(w.twin.id),
        );
      else
        await this.request(
          {
            label: "advance clock",
            method: "POST",
            path: "/__mock/clock/advance",
            twinPath: "/__mock/clock/advance",
            body: body(),
            role: "control",
          },
          op.r,
        );
      return op.w === null ? "advance (all)" : "advance";
    }
    if (!("w" in op) || op.w === null) return "skipped";
    const w = this.pick(live, op.w)!;
    const r = op.r;
    switch (op.k) {
      case "deleteWorkspace": {
        const { real } = await this.owner(
          w,
          "delete workspace",
          "DELETE",
          ({ ws }) => `/__mock/workspaces/${ws}`,
          undefined,
          r,
          false,
        );
        if (real?.status === 204 || real === undefined) {
          w.deleted = real !== undefined;
          if (real?.status === 204) {
            this.absent(w);
            await this.probeDeleted(w);
          }
        }
        return op.k;
      }
      case "resetWorkspace": {
        const { real } = await this.owner(
          w,
          "reset workspace",
          "POST",
          ({ ws }) => `/__mock/workspaces/${ws}/reset`,
          {},
          r,
          false,
        );
        if (real?.status === 200) {
          this.absent(w);
          this.forget(w);
          await this.setup(w, r);
        } else if (real === undefined) this.forget(w); // It may have applied: nothing acknowledged before it must remain.
        return op.k;
      }
      case "createIntegration": {
        const { real, twin, entry } = await this.owner(
          w,
          "create integration",
          "POST",
          () => "/v1/integrations",
          { name: op.name },
          r,
          true,
        );
        const realId = (real?.body as { integrationId?: string } | undefined)?.integrationId;
        if (real?.status === 201 && realId) {
          const twinId = (twin?.body as { integrationId?: string } | undefined)?.integrationId ?? "";
          w.integrations.push({ real: realId, twin: twinId });
          this.ack(w, "integrations", realId);
          entry.writes = [{ register: `${w.real.id}/${realId}`, value: op.name }];
        }
        return op.k;
      }
      case "getIntegration":
      case "patchIntegration":
      case "createAuth": {
        const i = this.pick(w.integrations, op.i);
        if (!i) return this.dispatch({ k: "createIntegration", w: op.w, name: "first", r });
        // By side, not by comparing workspace ids: the model's ids can be the same strings as the real ones.
        const path = (side: { real: boolean }) => `/v1/integrations/${side.real ? i.real : i.twin}`;
        if (op.k === "getIntegration") await this.owner(w, "get integration", "GET", path, undefined, r, true);
        else if (op.k === "patchIntegration") {
          const { real, entry } = await this.owner(w, "patch integration", "PATCH", path, { name: op.name }, r, true);
          if (real?.status === 200 || real === undefined)
            entry.writes = [{ register: `${w.real.id}/${i.real}`, value: op.name }];
        } else
          await this.owner(
            w,
            "create integration auth",
            "POST",
            (ws) => `${path(ws)}/auth`,
            { authType: "BEARER", token: `t-${op.i}` },
            r,
            true,
          );
        return op.k;
      }
      case "createQaRule": {
        const qaRuleId = uuidOf(this.ctx.run, this.index, this.counter++, "qa");
        const { real } = await this.owner(
          w,
          "create qaRules",
          "POST",
          ({ ws }) => `/__mock/workspaces/${ws}/qaRules`,
          { qaRuleId, agents: [{ agentId: AGENT_B }] },
          r,
          false,
        );
        if (real?.status === 201) {
          w.qaRules.push(qaRuleId);
          this.ack(w, "qaRules", qaRuleId);
        }
        return op.k;
      }
      case "getQaRule":
      case "deleteQaRule": {
        const q = this.pick(w.qaRules, op.i) ?? uuidOf("no-such-rule", op.i);
        const method = op.k === "getQaRule" ? "GET" : "DELETE";
        const { real } = await this.owner(
          w,
          op.k === "getQaRule" ? "get qa rule" : "delete qa rule",
          method,
          () => `/v1/qa-rules/${q}`,
          undefined,
          r,
          true,
        );
        if (method === "DELETE" && real?.status === 204) {
          w.qaRules = w.qaRules.filter((x) => x !== q);
          w.acked.get("qaRules")?.delete(q);
        }
        return op.k;
      }
      case "createPhoneNumber": {
        const number = `+1555${String(this.ctx.run % 100).padStart(2, "0")}${String(this.index).padStart(2, "0")}${String(this.counter++ % 1000).padStart(3, "0")}`;
        const { real } = await this.owner(
          w,
          "create phoneNumbers",
          "POST",
          ({ ws }) => `/__mock/workspaces/${ws}/phoneNumbers`,
          { sipPhoneNumber: number, inboundAgentId: AGENT_A, outboundAgentId: AGENT_A },
          r,
          false,
        );
        if (real?.status === 201) {
          w.phones.push(number);
          this.ack(w, "phoneNumbers", number);
        }
        return op.k;
      }
      case "patchPhoneNumber": {
        const p = this.pick(w.phones, op.i);
        if (!p) return this.dispatch({ k: "createPhoneNumber", w: op.w, r });
        await this.owner(
          w,
          "patch phone number",
          "PATCH",
          () => `/v1/phone-number/${encodeURIComponent(p)}`,
          { friendlyName: op.name },
          r,
          true,
        );
        return op.k;
      }
      case "list": {
        const path = {
          agents: "/v1/agents",
          calls: "/v1/calls",
          webhooks: "/v1/webhooks",
          testRuns: "/v1/test-runs",
          phoneNumbers: "/v1/phone-number",
        }[op.what];
        await this.owner(w, `list ${op.what}`, "GET", () => path, undefined, r, true);
        return `list ${op.what}`;
      }
      case "scheduleCall": {
        // Its number named: one the mock picked would be a draw of the workspace's sequence, which
        // background work on the real side moves at other moments than on the model's.
        const phone = this.pick(w.phones, op.r);
        if (!phone) return this.dispatch({ k: "createPhoneNumber", w: op.w, r });
        const callId = uuidOf(this.ctx.run, this.index, this.counter++, "call");
        const { real } = await this.owner(
          w,
          "create calls",
          "POST",
          ({ ws }) => `/__mock/workspaces/${ws}/calls`,
          { callId, status: "scheduled", agent: { agentId: AGENT_A }, phoneNumber: { sipPhoneNumber: phone } },
          r,
          false,
        );
        if (real?.status === 201) {
          w.calls.push(callId);
          this.ack(w, "calls", callId);
        }
        return op.k;
      }
      case "getCall": {
        const c = this.pick(w.calls, op.i);
        if (!c) return this.dispatch({ k: "list", w: op.w, what: "calls", r });
        await this.owner(w, "get call", "GET", () => `/v1/calls/${c}`, undefined, r, true);
        return op.k;
      }
      case "createChat": {
        const conversation = `${op.text} ${this.ctx.run}-${this.index}-${this.counter++}`;
        await this.owner(w, "create chat", "POST", () => "/v1/chat", { agentId: AGENT_A, conversation }, r, true);
        return op.k;
      }
      case "createBatchRun": {
        if (w.testCases.length === 0) await this.setup(w, r);
        const testCases = w.testCases.slice(0, op.cases);
        const { real, twin } = await this.owner(
          w,
          "create batch run",
          "POST",
          () => "/v1/batch-runs",
          { agentId: AGENT_A, testCases },
          r,
          true,
        );
        const realId = (real?.body as { batchId?: string } | undefined)?.batchId;
        if (real?.status === 201 && realId) {
          w.batchRuns.push({ real: realId, twin: (twin?.body as { batchId?: string } | undefined)?.batchId ?? "" });
          this.ack(w, "batchRuns", realId);
        }
        return op.k;
      }
      case "getBatchRun": {
        const b = this.pick(w.batchRuns, op.i);
        if (!b) return this.dispatch({ k: "createBatchRun", w: op.w, cases: 1, r });
        await this.owner(
          w,
          "get batch run",
          "GET",
          ({ real }) => `/v1/batch-runs/${real ? b.real : b.twin}`,
          undefined,
          r,
          true,
        );
        return op.k;
      }
      case "dump":
        await this.owner(
          w,
          `dump ${op.what}`,
          "GET",
          ({ ws }) => `/__mock/workspaces/${ws}/${op.what}`,
          undefined,
          r,
          false,
        );
        return `dump ${op.what}`;
      case "fault": {
        const rule = (ws: string) => ({
          operationId: op.op,
          workspaceId: ws,
          kind: "status",
          status: op.status,
          times: 1,
        });
        await this.owner(w, "create fault", "POST", () => "/__mock/faults", rule(w.real.id), r, false, rule(w.twin.id));
        // The next matching request of the workspace must meet it, whichever replica serves it.
        const next: Record<typeof op.op, Op> = {
          listAgents: { k: "list", w: op.w, what: "agents", r: r + 1 },
          listPhoneNumbers: { k: "list", w: op.w, what: "phoneNumbers", r: r + 1 },
          listWebhooks: { k: "list", w: op.w, what: "webhooks", r: r + 1 },
          getIntegration: { k: "getQaRule", w: op.w, i: op.status, r: r + 1 },
        };
        await this.dispatch(next[op.op]);
        return op.k;
      }
    }
    return "skipped";
  }

  async createWorkspace(seed: number, empty: boolean, r: number): Promise<OwnedWorkspace | undefined> {
    const { real, twin } = await this.request(
      {
        label: "create workspace",
        method: "POST",
        path: "/__mock/workspaces",
        twinPath: "/__mock/workspaces",
        body: { seed, empty },
        role: "owner",
      },
      r,
    );
    if (real?.status !== 201 || twin?.status !== 201) return undefined;
    const ids = (a: Answer) => a.body as { workspaceId: string; apiKey: string };
    const w: OwnedWorkspace = {
      owner: this.index,
      real: { id: ids(real).workspaceId, key: ids(real).apiKey },
      twin: { id: ids(twin).workspaceId, key: ids(twin).apiKey },
      seed,
      empty,
      integrations: [],
      qaRules: [],
      phones: [],
      calls: [],
      batchRuns: [],
      testCases: [],
      // A seeded workspace's world is not followed by the model (see the report): its acknowledged records are checked.
      unresolved: !empty,
      acked: new Map(),
      deleted: false,
      hooks: new Map(),
      ids: new Bindings(),
    };
    this.mine.push(w);
    this.ctx.workspaces.push(w);
    this.ctx.history.entries.at(-1)!.workspace = w.real.id;
    await this.setup(w, r);
    return w;
  }

  /** Registers of a workspace reset or deleted: every integration read after it is absent. */
  private absent(w: OwnedWorkspace): void {
    const entry = this.ctx.history.entries.findLast((e) => e.client === this.index && e.workspace === w.real.id);
    if (entry) entry.writes = w.integrations.map((i) => ({ register: `${w.real.id}/${i.real}`, value: ABSENT }));
  }

  /** After a delete: the old key answers 401 through every live replica. */
  private async probeDeleted(w: OwnedWorkspace): Promise<void> {
    for (const replica of this.ctx.topology.live()) {
      const { real, entry } = await this.request(
        {
          label: "deleted key",
          method: "GET",
          path: "/v1/agents",
          key: w.real.key,
          workspace: w,
          role: "probe",
          replica,
        },
        0,
      );
      this.ctx.figures.deletedKeyProbes++;
      if (real && real.status !== 401)
        this.ctx.history.anomalies.push({
          kind: "deleted-key",
          message: `the key of deleted workspace ${w.real.id} answered ${real.status} through ${replica.name}, not 401`,
          entry: entry.id,
          workspace: w.real.id,
          at: entry.complete,
        });
    }
  }

  /** Reads another client's integration with that workspace's key: a register read. */
  private async observe(other: number, i: number, r: number): Promise<string> {
    const peers = this.others().filter((c) => c.index !== this.index && c.workspaces.length > 0);
    const peer = this.pick(peers, other);
    const w = peer && this.pick(peer.workspaces, i);
    const integration = w && this.pick(w.integrations, i);
    if (!w || !integration) return this.dispatch({ k: "list", w: i, what: "agents", r });
    const { real, entry } = await this.request(
      {
        label: "observe integration",
        method: "GET",
        path: `/v1/integrations/${integration.real}`,
        key: w.real.key,
        workspace: w,
        role: "observer",
      },
      r,
    );
    if (real) {
      const name = (real.body as { name?: string } | undefined)?.name;
      const value =
        real.status === 200 && name !== undefined
          ? name
          : real.status === 404 || real.status === 401
            ? ABSENT
            : `status ${real.status}`;
      entry.read = { register: `${w.real.id}/${integration.real}`, value };
      this.ctx.figures.registerReads++;
    }
    return "observe";
  }

  /** POST /__mock/reset on a replica and on the model, under a barrier; every workspace is then set up again. */
  private async mockReset(r: number): Promise<void> {
    const { real } = await this.request(
      {
        label: "reset mock",
        method: "POST",
        path: "/__mock/reset",
        twinPath: "/__mock/reset",
        body: {},
        role: "control",
      },
      r,
    );
    if (real?.status !== 200) return;
    const entry = this.ctx.history.entries.at(-1)!;
    entry.writes = this.ctx.workspaces
      .filter((w) => !w.deleted)
      .flatMap((w) => w.integrations.map((i) => ({ register: `${w.real.id}/${i.real}`, value: ABSENT })));
    for (const client of this.others())
      for (const w of client.workspaces) {
        client.forget(w);
        await client.setup(w, r);
      }
  }
}

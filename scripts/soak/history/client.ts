/**
 * One client of the history checker: it sends one request at a time to a replica of the live list
 * (never the one its previous request went to), records every request and answer in the history, and
 * owns its workspaces. Right after a real answer about a modelled workspace, it replays the request on
 * the twin in the model and compares the answers. What each op sends is in the op files
 * (workspace-lifecycle.ts, api-ops.ts, control-ops.ts, observe.ts); dispatch.ts routes ops to them.
 */
import type { DriverContext } from "./driver-context.js";
import type { Entry } from "./history.js";
import { type Answer, compareAnswers, send } from "./model.js";
import type { Replica } from "./topology.js";
import type { Op } from "./workload.js";
import type { OwnedWorkspace } from "./workspace.js";

/** An op of the workload, by its kind. */
export type OpOf<K extends Op["k"]> = Extract<Op, { k: K }>;

/** Runs another op in place of one that cannot run as drawn (what it needs is missing); the kind that ran. */
export type Redirect = (op: Op) => Promise<string>;

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

/** The item a workload index points at, modulo the list's length. */
export function pick<T>(list: T[], i: number): T | undefined {
  return list.length === 0 ? undefined : list[i % list.length];
}

export class Client {
  private counter = 0;
  private lastName = "";
  private readonly mine: OwnedWorkspace[] = [];

  constructor(
    readonly index: number,
    readonly ctx: DriverContext,
    /** Every client of the run, this one included. */
    readonly allClients: () => Client[],
  ) {}

  /** This client's workspaces that are not deleted. */
  get workspaces(): OwnedWorkspace[] {
    return this.mine.filter((w) => !w.deleted);
  }

  /** Takes a new workspace as this client's own (and the run's, for the end checks). */
  adopt(w: OwnedWorkspace): void {
    this.mine.push(w);
    this.ctx.workspaces.push(w);
  }

  /** A number no other call of this client gets: the ids it chooses carry it (it moves the replica choice on too). */
  nextCount(): number {
    return this.counter++;
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
        // A write's outcome is unknown; so is a read's that may have used up the workspace's fault rule.
        if (req.workspace && (req.method !== "GET" || req.workspace.faultPending) && req.role === "owner")
          req.workspace.unresolved = true;
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
  owner(
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
}

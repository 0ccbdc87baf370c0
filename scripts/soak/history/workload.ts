/**
 * The workload of the history checker as fast-check arbitraries: per client, a list of abstract
 * operations (what to do, on which of its workspaces and records, through which replica offset),
 * plus the moments of the kills. Abstract, so a seed regenerates the same workload and fast-check
 * can shrink a failing one (fewer clients, fewer and simpler operations); the driver resolves each
 * operation against what the client owns when it runs it.
 */
import fc from "fast-check";

export type ListWhat = "agents" | "calls" | "webhooks" | "testRuns" | "phoneNumbers";
/** The collections whose dump does not depend on when background work ran (compared after a restart too). */
export const TIME_INDEPENDENT = ["agents", "integrations", "phoneNumbers", "qaRules", "webhooks", "testCases"] as const;
/** The collections an op may dump. */
export const DUMPED = [...TIME_INDEPENDENT, "calls", "batchRuns", "testRuns"] as const;
export type DumpWhat = (typeof DUMPED)[number];
export type FaultOp = "listAgents" | "getIntegration" | "listPhoneNumbers" | "listWebhooks";

/** `w`, `i`, ...: indexes taken modulo what the client has when the op runs. `r`: replica offset. */
export type Op = { r: number } & (
  | { k: "createWorkspace"; seed: number; empty: boolean }
  | { k: "deleteWorkspace"; w: number }
  | { k: "resetWorkspace"; w: number }
  | { k: "createIntegration"; w: number; name: string }
  | { k: "getIntegration"; w: number; i: number }
  | { k: "patchIntegration"; w: number; i: number; name: string }
  | { k: "createAuth"; w: number; i: number }
  | { k: "createQaRule"; w: number }
  | { k: "getQaRule"; w: number; i: number }
  | { k: "deleteQaRule"; w: number; i: number }
  | { k: "createPhoneNumber"; w: number }
  | { k: "patchPhoneNumber"; w: number; i: number; name: string }
  | { k: "list"; w: number; what: ListWhat }
  | { k: "scheduleCall"; w: number }
  | { k: "getCall"; w: number; i: number }
  | { k: "createChat"; w: number; text: string }
  | { k: "createBatchRun"; w: number; cases: 1 | 2 }
  | { k: "getBatchRun"; w: number; i: number }
  | { k: "dump"; w: number; what: DumpWhat }
  | { k: "fault"; w: number; op: FaultOp; status: 400 | 403 | 404 }
  | { k: "advance"; w: number | null; seconds: number }
  | { k: "observe"; other: number; i: number }
  | { k: "mockReset" }
);

export type OpKind = Op["k"];

export interface Kill {
  /** After this fraction of all operations has completed. */
  at: number;
  /** Which live replica (modulo their number). */
  pick: number;
}

export interface Workload {
  clients: Op[][];
  kills: Kill[];
}

const r = fc.nat({ max: 1000 });
const idx = fc.nat({ max: 50 });
const name = fc.stringMatching(/^[a-z]{1,8}$/);

/** Relative weights: mostly API traffic, some control plane, a rare mock-wide reset. */
export function opArbitrary(): fc.Arbitrary<Op> {
  return fc.oneof(
    {
      weight: 40,
      arbitrary: fc.record({
        k: fc.constant("createWorkspace" as const),
        seed: fc.nat({ max: 1000 }),
        empty: fc.boolean(),
        r,
      }),
    },
    { weight: 10, arbitrary: fc.record({ k: fc.constant("deleteWorkspace" as const), w: idx, r }) },
    { weight: 10, arbitrary: fc.record({ k: fc.constant("resetWorkspace" as const), w: idx, r }) },
    { weight: 60, arbitrary: fc.record({ k: fc.constant("createIntegration" as const), w: idx, name, r }) },
    { weight: 60, arbitrary: fc.record({ k: fc.constant("getIntegration" as const), w: idx, i: idx, r }) },
    { weight: 60, arbitrary: fc.record({ k: fc.constant("patchIntegration" as const), w: idx, i: idx, name, r }) },
    { weight: 20, arbitrary: fc.record({ k: fc.constant("createAuth" as const), w: idx, i: idx, r }) },
    { weight: 20, arbitrary: fc.record({ k: fc.constant("createQaRule" as const), w: idx, r }) },
    { weight: 20, arbitrary: fc.record({ k: fc.constant("getQaRule" as const), w: idx, i: idx, r }) },
    { weight: 10, arbitrary: fc.record({ k: fc.constant("deleteQaRule" as const), w: idx, i: idx, r }) },
    { weight: 20, arbitrary: fc.record({ k: fc.constant("createPhoneNumber" as const), w: idx, r }) },
    { weight: 30, arbitrary: fc.record({ k: fc.constant("patchPhoneNumber" as const), w: idx, i: idx, name, r }) },
    {
      weight: 80,
      arbitrary: fc.record({
        k: fc.constant("list" as const),
        w: idx,
        what: fc.constantFrom<ListWhat>("agents", "calls", "webhooks", "testRuns", "phoneNumbers"),
        r,
      }),
    },
    { weight: 30, arbitrary: fc.record({ k: fc.constant("scheduleCall" as const), w: idx, r }) },
    { weight: 20, arbitrary: fc.record({ k: fc.constant("getCall" as const), w: idx, i: idx, r }) },
    { weight: 30, arbitrary: fc.record({ k: fc.constant("createChat" as const), w: idx, text: name, r }) },
    {
      weight: 20,
      arbitrary: fc.record({
        k: fc.constant("createBatchRun" as const),
        w: idx,
        cases: fc.constantFrom<1 | 2>(1, 2),
        r,
      }),
    },
    { weight: 20, arbitrary: fc.record({ k: fc.constant("getBatchRun" as const), w: idx, i: idx, r }) },
    {
      weight: 30,
      arbitrary: fc.record({
        k: fc.constant("dump" as const),
        w: idx,
        what: fc.constantFrom<DumpWhat>(...DUMPED),
        r,
      }),
    },
    {
      weight: 20,
      arbitrary: fc.record({
        k: fc.constant("fault" as const),
        w: idx,
        // Not getIntegration: observers read integrations with the key, and could meet the rule first.
        op: fc.constantFrom<FaultOp>("listAgents", "listPhoneNumbers", "listWebhooks"),
        status: fc.constantFrom<400 | 403 | 404>(400, 403, 404),
        r,
      }),
    },
    {
      weight: 10,
      arbitrary: fc.record({
        k: fc.constant("advance" as const),
        w: fc.option(idx, { nil: null }),
        seconds: fc.integer({ min: 1, max: 120 }),
        r,
      }),
    },
    { weight: 40, arbitrary: fc.record({ k: fc.constant("observe" as const), other: idx, i: idx, r }) },
    { weight: 1, arbitrary: fc.record({ k: fc.constant("mockReset" as const), r }) },
  );
}

/**
 * The workload at full size (exactly `clients` clients of about ops/clients operations each), shrunk by
 * hand: fast-check's array shrinking stops at minLength, and the first run must be full size. Smaller
 * candidates drop a kill, a client, the second half of a client's list, or a quarter of it.
 */
class WorkloadArbitrary extends fc.Arbitrary<Workload> {
  constructor(private readonly inner: fc.Arbitrary<Workload>) {
    super();
  }

  generate(mrng: fc.Random, biasFactor: number | undefined): fc.Value<Workload> {
    return new fc.Value(this.inner.generate(mrng, biasFactor).value, undefined);
  }

  canShrinkWithoutContext(value: unknown): value is Workload {
    return typeof value === "object" && value !== null && "clients" in value && "kills" in value;
  }

  shrink(value: Workload): fc.Stream<fc.Value<Workload>> {
    return new fc.Stream(smaller(value)).map((w) => new fc.Value(w, undefined));
  }
}

function* smaller(w: Workload): IterableIterator<Workload> {
  for (let k = 0; k < w.kills.length; k++) yield { ...w, kills: w.kills.filter((_, j) => j !== k) };
  if (w.clients.length > 1)
    for (let c = w.clients.length - 1; c >= 0; c--) yield { ...w, clients: w.clients.filter((_, j) => j !== c) };
  for (let c = 0; c < w.clients.length; c++) {
    const ops = w.clients[c];
    if (ops.length <= 1) continue;
    const keep = (list: Op[]) => ({ ...w, clients: w.clients.map((o, j) => (j === c ? list : o)) });
    yield keep(ops.slice(0, Math.ceil(ops.length / 2)));
    const quarter = Math.max(1, Math.floor(ops.length / 4));
    for (let from = 1; from < ops.length; from += quarter)
      yield keep([...ops.slice(0, from), ...ops.slice(from + quarter)]);
  }
}

export function workloadArbitrary(options: { clients: number; ops: number; kill: boolean }): fc.Arbitrary<Workload> {
  const perClient = Math.max(1, Math.ceil(options.ops / options.clients));
  // Every client starts by creating a workspace (then the rest of its list), so no work is wasted on nothing.
  const first = fc.record({
    k: fc.constant("createWorkspace" as const),
    seed: fc.nat({ max: 1000 }),
    empty: fc.boolean(),
    r,
  });
  const client = fc
    .tuple(first, fc.array(opArbitrary(), { minLength: perClient - 1, maxLength: perClient - 1 }))
    .map(([head, rest]) => [head as Op, ...rest]);
  const kill = fc.record({ at: fc.double({ min: 0.1, max: 0.85, noNaN: true }), pick: fc.nat({ max: 100 }) });
  return new WorkloadArbitrary(
    fc.record({
      clients: fc.array(client, { minLength: options.clients, maxLength: options.clients }),
      kills: options.kill ? fc.array(kill, { minLength: 1, maxLength: 3 }) : fc.constant([]),
    }),
  );
}

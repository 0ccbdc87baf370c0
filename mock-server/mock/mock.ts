/**
 * createMock: the mock's world (clock, workspaces, simulation, webhooks, journal) and the core that
 * serves it, with nothing that listens. The doors (node/, app.ts, msw/) each wrap one of these.
 */
import { Clock, type ClockOptions } from "../core/clock.js";
import { Contract } from "../core/contract.js";
import { FaultRules } from "../core/faults.js";
import { generatedSpec, type GeneratedSpec } from "../core/spec.js";
import { controlRoutes } from "../control/router.js";
import { handlers } from "../routes/index.js";
import { recordCheck } from "../store/record-checks.js";
import { DEFAULT_API_KEY, DEFAULT_WORKSPACE_ID } from "../core/defaults.js";
import { seedWorkspace } from "../seed/index.js";
import { Simulation } from "../sim/simulation.js";
import { restoreState, type PersistedState } from "../store/state.js";
import { Workspaces, type Sha256, type Workspace } from "../store/workspace.js";
import { DEFAULT_DISPATCHER_OPTIONS, WebhookDispatcher, type DispatcherOptions } from "../webhooks/dispatcher.js";
import { Scheduler } from "../sim/scheduler.js";
import type { Services } from "../routes/context.js";
import type { DocsSite, RequestLogEntry } from "../core/exchange.js";
import { Journal, type RequestJournal } from "../store/journal.js";
import { SharedJournal } from "../store/shared/journal.js";
import type { RedisLink } from "../store/shared/redis.js";
import { SharedWorkspaces } from "../store/shared/shared-workspaces.js";
import { createCore, type Core } from "./pipeline.js";

export { DEFAULT_API_KEY, DEFAULT_WORKSPACE_ID };

export interface MockOptions {
  apiKey: string;
  seed: number;
  clock: ClockOptions;
  validateResponses: boolean;
  journalCapacity: number;
  webhooks: Partial<Omit<DispatcherOptions, "log">>;
  log: (line: string) => void;
  /** State loaded from --state-file: replaces the seeded world. */
  restore?: PersistedState;
  /** How API keys are hashed: Web Crypto unless a door brings a faster one (Node's crypto.hash). */
  sha256?: Sha256;
  /** The docs site (/docs); the Node doors bring one. */
  docs?: DocsSite;
  /** Told of every answered request: the console's request log. */
  onRequest?: (entry: RequestLogEntry) => void;
  /** Keep all state in Redis, shared with every process given the same store (store/shared/). */
  shared?: RedisLink;
  /**
   * The spec to serve, with the validators compiled from it; the one bundled into generated/ by
   * default. Each mock serves its own: mocks in one process may serve different specs.
   */
  spec?: GeneratedSpec;
}

export const DEFAULT_MOCK_OPTIONS: MockOptions = {
  apiKey: DEFAULT_API_KEY,
  seed: 1,
  clock: { mode: "real" },
  validateResponses: true,
  journalCapacity: 500,
  webhooks: {},
  log: (line) => console.error(line),
};

export interface Mock {
  core: Core;
  services: Services;
  journal: RequestJournal;
  options: MockOptions;
  /** On a shared store: settles once this process has seeded the store, or joined the one there. */
  joined?: Promise<"seeded" | "joined">;
  /** The spec this mock serves now. */
  contract(): Contract;
  /**
   * Serves another spec from the next request on (npm start -- --watch): its operation table is built
   * first, so a spec the mock cannot use throws and the one in use stays. Records are not refitted
   * here (control/spec-fit.ts). Returns the new contract.
   */
  installSpec(spec: GeneratedSpec): Contract;
  /** Stops timers and waits for webhook attempts under way. */
  close(): Promise<void>;
}

export function createMock(overrides: Partial<MockOptions> = {}): Mock {
  const options: MockOptions = { ...DEFAULT_MOCK_OPTIONS, ...overrides };
  const clock = new Clock(options.clock);
  clock.onTaskError = (error) => options.log(`scheduled task failed: ${(error as Error)?.stack ?? String(error)}`);
  const { shared } = options;
  // The spec this mock serves; only installSpec replaces it.
  let contract = new Contract(options.spec ?? generatedSpec());
  // On a shared store, an attempt whose process died is made again once its lease (clock time) runs out.
  const leaseMs = shared
    ? (options.webhooks.timeoutMs ?? DEFAULT_DISPATCHER_OPTIONS.timeoutMs) * 2 + 10_000
    : undefined;
  const webhooks = new WebhookDispatcher({
    ...DEFAULT_DISPATCHER_OPTIONS,
    leaseMs,
    ...options.webhooks,
    log: options.log,
  });
  const simulation = new Simulation(webhooks);
  const seeder = (workspace: Workspace) => {
    seedWorkspace(workspace, workspace.clock.now());
    simulation.resume(workspace);
  };
  const workspaces = shared
    ? new SharedWorkspaces(shared, seeder, clock, options.sha256)
    : new Workspaces(seeder, clock, options.sha256);
  const transact = <T>(workspace: Workspace, work: () => T, refresh?: boolean) =>
    workspaces.transact(workspace, work, refresh);
  webhooks.transact = transact;
  const scheduler = new Scheduler(simulation, transact);
  workspaces.onAdd = (workspace) => scheduler.wakeClockOf(workspace);
  const services: Services = { clock, workspaces, simulation, webhooks, scheduler, contract: () => contract };
  const addDefault = () =>
    workspaces.add({
      workspaceId: DEFAULT_WORKSPACE_ID,
      apiKey: options.apiKey,
      seed: options.seed,
      empty: false,
      readOnly: false,
    });
  if (!shared) addDefault();
  if (options.restore) {
    restoreState(options.restore, workspaces, recordCheck(contract));
    for (const workspace of workspaces.list()) simulation.resume(workspace);
  }
  const journal = shared ? new SharedJournal(shared, options.journalCapacity) : new Journal(options.journalCapacity);
  const faults = new FaultRules(
    () => contract.operationsById,
    (id) => workspaces.get(id) !== undefined,
  );
  const core = createCore(services, journal, {
    validateResponses: options.validateResponses,
    log: options.log,
    contract: services.contract,
    handlers,
    control: controlRoutes({ ...services, journal, faults }),
    faults,
    docs: options.docs,
    onRequest: options.onRequest,
  });
  let joined: Promise<"seeded" | "joined"> | undefined;
  if (workspaces instanceof SharedWorkspaces) {
    workspaces.attachFaults(core.faults);
    workspaces.runDue = (workspace) => scheduler.runDue(workspace);
    joined = workspaces.join(addDefault).then((how) => {
      workspaces.startPolling();
      return how;
    });
  }
  return {
    core,
    services,
    journal,
    options,
    joined,
    contract: services.contract,
    installSpec(spec) {
      const next = new Contract(spec);
      void next.operations;
      contract = next;
      return next;
    },
    async close() {
      workspaces.stopClocks();
      await webhooks.idle();
    },
  };
}

/**
 * createMock: the mock's world (clock, workspaces, simulation, webhooks, journal) and the core that
 * serves it, with nothing that listens. The doors (node/, app.ts, msw/) each wrap one of these. It
 * assembles the mock from the components it is given: where the state lives (a Store: in memory by
 * default; the Node door brings one in Redis) and the request journal.
 */
import { Clock, type ClockOptions } from "../core/clock.js";
import { Contract } from "../core/contract.js";
import { FaultRules } from "../core/faults.js";
import { generatedSpec, type GeneratedSpec } from "../core/spec.js";
import { controlAccess } from "../control/access.js";
import { controlRoutes } from "../control/router.js";
import { handlers } from "../routes/index.js";
import { documentErrorBody, genericHandler } from "../generic/handler.js";
import { recordCheck } from "../store/record-checks.js";
import { DEFAULT_API_KEY, DEFAULT_WORKSPACE_ID } from "../core/defaults.js";
import { holdScenario, seedWorkspace } from "../seed/index.js";
import { Simulation } from "../sim/simulation.js";
import { restoreState, type PersistedState } from "../store/state.js";
import { memoryStore } from "../store/memory/memory-store.js";
import { type Sha256, type Store, type StoreFactory, WorkspaceGone } from "../store/store.js";
import type { Scenario } from "../store/workspace.js";
import { DEFAULT_DISPATCHER_OPTIONS, WebhookDispatcher, type DispatcherOptions } from "../webhooks/dispatcher.js";
import { Scheduler } from "../sim/scheduler.js";
import type { Services } from "../routes/context.js";
import type { DashboardSite, DocsSite, RequestLogEntry } from "../core/exchange.js";
import { MockEvents } from "../core/events.js";
import { withVerification } from "../webhooks/verification.js";
import { liveJournal } from "./live-journal.js";
import { Journal, type RequestJournal } from "../store/journal.js";
import { CredentialWorkspaces, securityOf } from "./credentials.js";
import { createCore, type Core } from "./pipeline.js";
import type { InFront } from "./upstream-step.js";
import { DriftLog } from "../upstream/drift-log.js";
import { Redactor } from "../upstream/redact.js";
import { randomUUID } from "../core/portable-crypto.js";
import { parseRouteTable, RouteModes, type RouteTable } from "../upstream/route-modes.js";
import type { UpstreamTransport } from "../core/exchange.js";
import { combineTelemetry, type Telemetry } from "../core/telemetry.js";
import type { MetricsText } from "../control/types.js";

export { DEFAULT_API_KEY, DEFAULT_WORKSPACE_ID };

export interface MockOptions {
  apiKey: string;
  seed: number;
  clock: ClockOptions;
  validateResponses: boolean;
  journalCapacity: number;
  webhooks: Partial<Omit<DispatcherOptions, "log">>;
  log: (line: string) => void;
  /** Seeds the default workspace with this scenario instead of the usual world (--scenario). */
  scenario?: Scenario;
  /** State loaded from --state-file: replaces the seeded world. */
  restore?: PersistedState;
  /** How API keys are hashed: Web Crypto unless a door brings a faster one (Node's crypto.hash). */
  sha256?: Sha256;
  /** The docs site (/docs); the Node doors bring one. */
  docs?: DocsSite;
  /** The dashboard's page (/__mock/ui); the Node doors bring one. */
  dashboard?: DashboardSite;
  /** Told of every answered request: the console's request log. */
  onRequest?: (entry: RequestLogEntry) => void;
  /** Told of every answered request and webhook attempt: the Node doors' metrics and traces (core/telemetry.ts). */
  telemetry?: Telemetry;
  /** What GET /__mock/metrics serves (the Node doors make it with prom-client); without it, 404. */
  metrics?: MetricsText;
  /**
   * The spec to serve. A GeneratedSpec: the kit's own spec with the validators compiled from it (the
   * one bundled into generated/ by default), served by the hand-written handlers and the generic layer
   * under them. An OpenAPI 3.0/3.1 document (parsed), or a GeneratedSpec made from one by compileSpec:
   * another document, served by the generic layer alone under its base path, with its own security
   * (a workspace per credential, created empty), no seeded world, and the /__mock control plane.
   * Each mock serves its own: mocks in one process may serve different specs.
   */
  spec?: GeneratedSpec | object;
  /** In front of a real deployment: /v1 requests go to it through the door's transport (mock/upstream-step.ts). */
  upstream?: UpstreamSetup;
  /**
   * The control plane then needs `Authorization: Bearer <controlToken>` (the whole mock) or a workspace's
   * X-API-Key (that workspace): control/access.ts. Without it the control plane is open, as on a laptop.
   */
  controlToken?: string;
}

export interface UpstreamSetup {
  transport: UpstreamTransport;
  /** Per operation: upstream (default), mock or fallback; `*` sets the default. A table, or `OP=MODE,...`. */
  route?: RouteTable | string;
  /** Keep every record the upstream returns in this workspace (created empty if missing); true: `recorded`. */
  record?: string | boolean;
  /** Secrets the door itself holds (the upstream key): never shown. */
  secrets?: string[];
  /** Loads the drift rules (core/exchange-rules/drift.ts); a door imports them as suits its bundling. */
  rules: InFront["rules"];
}

/** The workspace `--record` keeps records in when it names none. */
export const RECORD_WORKSPACE_ID = "recorded";

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
  /** The upstream door's drift findings (GET /__mock/drift); empty without an upstream. */
  drift: DriftLog;
  /** In front of an upstream: who answers each operation, and the workspace records go into. */
  upstream?: { modes: RouteModes; recordInto?: string };
  services: Services;
  journal: RequestJournal;
  /** What happens, for GET /__mock/events (the dashboard). */
  events: MockEvents;
  options: MockOptions;
  /** Settles once this process has seeded the store, or joined the one there (a store shared by processes). */
  joined: Promise<"seeded" | "joined">;
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

/** What a mock is assembled from besides its options; each has a default that keeps everything in this process. */
export interface MockComponents {
  /** Where the state lives: memoryStore by default; the Node door brings redisStore for --store. */
  store?: StoreFactory;
  /** The request journal, made with its capacity: one in this process by default. */
  journal?: (capacity: number) => RequestJournal;
  /**
   * Compiles another OpenAPI document given as `spec` (core/compile-spec.ts). A door brings it: the
   * schema compiler is not bundled with the mock (the MSW door loads it only when asked).
   */
  compileDocument?: (document: unknown) => GeneratedSpec;
}

/** Whether `spec` is compiled already (a GeneratedSpec) rather than a document still to compile. */
export function isGeneratedSpec(spec: unknown): spec is GeneratedSpec {
  return typeof spec === "object" && spec !== null && "document" in spec && "validators" in spec;
}

/** The spec a mock serves: the bundled one, a compiled one, or a document compiled now by the door's compiler. */
function specOf(given: MockOptions["spec"], compile: MockComponents["compileDocument"]): GeneratedSpec {
  if (given === undefined) return generatedSpec();
  if (isGeneratedSpec(given)) return given;
  if (!compile)
    throw new Error(
      "createMock({ spec }) was given an OpenAPI document without a compiler: pass compileDocument (core/compile-spec.ts compileSpec), as the doors do",
    );
  return compile(given);
}

export function createMock(overrides: Partial<MockOptions> = {}, components: MockComponents = {}): Mock {
  const options: MockOptions = { ...DEFAULT_MOCK_OPTIONS, ...overrides };
  const spec = specOf(options.spec, components.compileDocument);
  // Another document: the generic layer alone, on workspaces that start empty (Contract.handwritten).
  const otherDocument = spec.origin?.kind === "document";
  if (otherDocument && options.upstream)
    throw new Error("--upstream stands in front of a deployment of the kit's API; it does not combine with --spec");
  if (otherDocument && options.scenario)
    throw new Error("--scenario seeds the kit's world; a document given with --spec starts empty");
  const upstream = options.upstream;
  // A route naming no operation of the spec stops the mock before anything starts.
  const modes =
    upstream &&
    new RouteModes(upstream.route === undefined ? undefined : parseRouteTable(upstream.route, spec.document));
  const recordInto = upstream?.record === true ? RECORD_WORKSPACE_ID : upstream?.record || undefined;
  const events = new MockEvents();
  const clock = new Clock(options.clock);
  clock.onTaskError = (error) => {
    if (!(error instanceof WorkspaceGone))
      options.log(`scheduled task failed: ${(error as Error)?.stack ?? String(error)}`);
  };
  // The spec this mock serves; only installSpec replaces it.
  let contract = new Contract(spec);
  // A security requirement naming a scheme the document does not define stops the start, not each request.
  if (otherDocument) for (const op of contract.operations) securityOf(contract, op);
  const faults = new FaultRules(
    () => contract.operationsById,
    (id) => workspaces.get(id) !== undefined,
  );
  // The store calls back into the seed, the simulation and the scheduler, made next: only once the mock is assembled.
  const workspaces: Store = (components.store ?? memoryStore)({
    clock,
    faults,
    sha256: options.sha256,
    seed: otherDocument
      ? () => undefined
      : (workspace) => {
          seedWorkspace(workspace, workspace.clock.now());
          simulation.resume(workspace);
          holdScenario(workspace);
        },
    added: (workspace) => scheduler.wakeClockOf(workspace),
    runDue: (workspace) => scheduler.runDue(workspace),
  });
  const webhooks = new WebhookDispatcher(
    {
      ...DEFAULT_DISPATCHER_OPTIONS,
      ...options.webhooks,
      log: options.log,
      onAttempt: combineTelemetry(
        options.webhooks.onAttempt && { webhookAttempt: options.webhooks.onAttempt },
        options.telemetry,
      )?.webhookAttempt,
    },
    workspaces,
    // As GET /__mock/webhook-deliveries shows it: verified or not. Only checked when someone watches.
    (delivery, workspace) =>
      events.active &&
      void withVerification(delivery, workspace).then((shown) => events.publish("delivery", shown.workspaceId, shown)),
  );
  const simulation = new Simulation(webhooks, workspaces);
  const scheduler = new Scheduler(simulation, workspaces);
  const services: Services = { clock, workspaces, simulation, webhooks, scheduler, contract: () => contract };
  const addDefault = () =>
    workspaces.add({
      workspaceId: DEFAULT_WORKSPACE_ID,
      apiKey: options.apiKey,
      seed: options.seed,
      empty: otherDocument,
      readOnly: false,
      ...(options.scenario && { scenario: options.scenario }),
    });
  // In memory the default workspace is there at once; a store shared by processes is seeded by the first.
  const joined = workspaces.open(addDefault);
  if (options.restore) {
    restoreState(options.restore, workspaces, recordCheck(contract));
    if (!otherDocument)
      for (const workspace of workspaces.list()) {
        simulation.resume(workspace);
        holdScenario(workspace);
      }
  }
  const journal = liveJournal(
    (components.journal ?? ((capacity) => new Journal(capacity)))(options.journalCapacity),
    events,
  );
  const drift = new DriftLog(options.log);
  const doorWorkspaceId = recordInto ?? DEFAULT_WORKSPACE_ID;
  const opened = recordInto
    ? joined.then(async (how) => {
        // The recording workspace is made empty the first time, and kept (with what it recorded) after.
        await workspaces.control(() => {
          if (!workspaces.get(doorWorkspaceId))
            workspaces.add(
              {
                workspaceId: doorWorkspaceId,
                apiKey: `${doorWorkspaceId}-api-key`,
                seed: options.seed,
                empty: true,
                readOnly: false,
              },
              { seed: false },
            );
        });
        return how;
      })
    : joined;
  const core = createCore(services, journal, {
    validateResponses: options.validateResponses,
    log: options.log,
    contract: services.contract,
    handlers,
    generic: genericHandler,
    credentials: new CredentialWorkspaces(workspaces, options.apiKey, options.sha256),
    documentError: documentErrorBody,
    control: controlRoutes({ ...services, journal, faults, drift, events, metrics: options.metrics }),
    access: controlAccess(services.workspaces, options.controlToken),
    faults,
    docs: options.docs,
    dashboard: options.dashboard,
    // The request log and the instruments, told in turn; nothing at all when there are none.
    onRequest: combineTelemetry(options.onRequest && { requestDone: options.onRequest }, options.telemetry)
      ?.requestDone,
    upstream: upstream && {
      transport: upstream.transport,
      modes: modes!,
      workspaceId: doorWorkspaceId,
      record: recordInto !== undefined,
      drift,
      redactor: new Redactor(upstream.secrets),
      coverage: (workspaceId, keys) => journal.addVariants(workspaceId, keys),
      ready: opened,
      rules: upstream.rules,
      via: `agent-platform-mock-${randomUUID().slice(0, 8)}`,
    },
  });
  return {
    core,
    drift,
    upstream: modes && { modes, recordInto },
    services,
    journal,
    events,
    options,
    joined: opened,
    contract: services.contract,
    installSpec(spec) {
      const next = new Contract(spec);
      void next.operations;
      contract = next;
      return next;
    },
    async close() {
      // Open event streams end first: a server waiting for its responses to finish would wait for them.
      events.close();
      await drift.settled();
      await workspaces.close();
      await webhooks.idle();
      // What was answered is in the shared journal before the store's connection goes (SIGTERM, close()).
      await journal.flush?.().catch((error: Error) => options.log(`journal not flushed: ${error.message}`));
    },
  };
}

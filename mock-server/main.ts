#!/usr/bin/env node
/** npm start: the mock on PORT/HOST, printing where it is and how to call it. */
import { clusterAwareMetrics } from "./node/cluster-metrics.js";
import { refuseOpenControl } from "./node/control-exposure.js";
import { choiceOption, helpText, integerOption, readConfig, scenarioOption, secondsOption } from "./node/config.js";
import { watchLauncher } from "./node/launcher-watch.js";
import { LOG_FORMATS, requestLogger } from "./node/request-log.js";
import { findKitRoot, watchSpec } from "./node/spec-watch.js";
import { loadState, StateSaver } from "./node/persistence.js";
import { startMock, type RunningMock } from "./server.js";
import { isFirstWorker, isWorker, runWorkers } from "./node/workers.js";
import { readFile } from "node:fs/promises";
import { DEFAULT_WORKSPACE_ID } from "./core/defaults.js";
import type { RouteTable } from "./upstream/route-modes.js";
import { describeSecurity } from "./mock/credentials.js";
import { describeGeneric, formatGenericSummary } from "./generic/index.js";
import { handlers } from "./routes/index.js";

function parseJson(text: string, path: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`--route ${path} is not JSON: ${(error as Error).message}`);
  }
}

async function readText(path: string, flag: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    throw new Error(
      `${flag} ${path} cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
}

async function main(): Promise<void> {
  let config;
  try {
    config = readConfig(process.argv.slice(2), process.env);
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${helpText()}`);
    process.exit(2);
  }
  if (config.help) {
    console.log(helpText());
    return;
  }
  const v = config.values;
  const mode = v.clock === "virtual" ? "virtual" : v.clock === "real" ? "real" : undefined;
  if (!mode) throw new Error(`--clock must be real or virtual, got "${v.clock}"`);
  const speed = Number(v["clock-speed"]);
  if (!(speed > 0)) throw new Error(`--clock-speed must be a positive number, got "${v["clock-speed"]}"`);
  const start = v["clock-start"] ? new Date(v["clock-start"]) : undefined;
  if (start && Number.isNaN(start.getTime()))
    throw new Error(`--clock-start must be an ISO 8601 time, got "${v["clock-start"]}"`);
  const validate =
    v["validate-responses"] === "" ? process.env.NODE_ENV !== "production" : v["validate-responses"] === "on";
  const stateFile = v["state-file"] || undefined;
  const saveEvery = integerOption(v, "save-interval", 1, 86_400);
  const logFormat = choiceOption(v, "log-format", LOG_FORMATS);
  const store = v.store || undefined;
  if (store && !/^rediss?:\/\//.test(store))
    throw new Error(`--store must be a redis:// URL (redis://HOST:PORT[/DB]), got "${store}"`);
  if (store && stateFile)
    throw new Error("--store and --state-file exclude each other: with a store, Redis keeps the state");
  if (store && v.watch) throw new Error("--watch reloads one process; it does not combine with --store");
  const scenario = scenarioOption(v);
  // Another document is served by the generic layer alone: the kit's own reload, world and upstream door do not apply.
  const spec = v.spec || undefined;
  if (spec && v.watch) throw new Error("--watch regenerates the kit's spec/; it does not combine with --spec");
  if (spec && v.upstream)
    throw new Error("--upstream stands in front of a deployment of the kit's API; it does not combine with --spec");
  if (spec && scenario) throw new Error("--scenario seeds the kit's world; a document given with --spec starts empty");
  const workers = integerOption(v, "workers", 1, 256);
  if (workers > 1 && !store)
    throw new Error("--workers needs --store: separate processes share state only through Redis");
  const controlToken = v["control-token"] || undefined;
  // Before any worker starts: the refusal is one line, not one per worker.
  refuseOpenControl(v.host, controlToken, v["insecure-control"] === "1");
  if (workers > 1 && !isWorker()) {
    await runWorkers(workers, store!, (stop) => watchLauncher(stop));
    return;
  }
  const upstream = v.upstream || undefined;
  for (const flag of ["route", "record", "upstream-api-key", "upstream-ca"])
    if (v[flag] && !upstream) throw new Error(`--${flag} needs --upstream: it says how to stand in front of one`);
  const upstreamCa = v["upstream-ca"] ? await readText(v["upstream-ca"], "--upstream-ca") : undefined;
  const route = (
    v.route.endsWith(".json") ? parseJson(await readText(v.route, "--route"), v.route) : v.route || undefined
  ) as RouteTable | string | undefined;
  const restore = stateFile ? await loadState(stateFile) : undefined;
  const kitRoot = v.watch ? findKitRoot() : undefined;
  if (v.watch && !kitRoot)
    throw new Error(
      "--watch needs the kit's repository (spec/ and the kit's package.json above this code); an installed mock has no spec/ to watch",
    );

  const running = await startMock({
    ...(spec && { spec }),
    port: integerOption(v, "port", 0, 65535),
    host: v.host,
    apiKey: v["api-key"],
    seed: integerOption(v, "seed", 0, 4294967295),
    scenario,
    // A virtual clock goes on from where the saved state left it, not back to its start.
    clock: { mode, speed, start: start ?? (mode === "virtual" && restore ? new Date(restore.savedAt) : undefined) },
    validateResponses: validate,
    journalCapacity: integerOption(v, "journal-size", 0, 1_000_000),
    webhooks: {
      outboxCapacity: integerOption(v, "outbox-size", 1, 1_000_000),
      timeoutMs: secondsOption(v, "webhook-timeout", 0.01, 600) * 1000,
      maxAttempts: integerOption(v, "webhook-attempts", 1, 100),
      backoffSeconds: secondsOption(v, "webhook-backoff", 0, 86_400),
    },
    requestTimeoutMs: secondsOption(v, "request-timeout", 0.1, 86_400) * 1000,
    shutdownGraceMs: secondsOption(v, "shutdown-grace", 0, 3_600) * 1000,
    restore,
    store,
    onRequest: requestLogger(logFormat),
    upstream,
    upstreamApiKey: v["upstream-api-key"] || undefined,
    upstreamCa,
    upstreamTimeoutMs: secondsOption(v, "upstream-timeout", 0.01, 3_600) * 1000,
    route,
    record: v.record || undefined,
    controlToken,
    insecureControl: v["insecure-control"] === "1",
    // A worker's scrape answers the sum of every worker's figures, gathered by the primary.
    ...(isWorker() && { metricsText: (local) => clusterAwareMetrics(local) }),
  });
  const saver = stateFile
    ? new StateSaver(stateFile, running.mock.services.workspaces, () => running.mock.services.clock.iso())
    : undefined;
  let timer: NodeJS.Timeout | undefined;
  if (saver) {
    // A first save at once: a state file that cannot be written is told now, not at exit.
    try {
      await saver.save();
    } catch (error) {
      await running.close();
      throw new Error(`State file ${stateFile} cannot be written: ${(error as Error).message}`);
    }
    timer = setInterval(
      () => saver.save().catch((e) => console.error(`state not saved: ${(e as Error).message}`)),
      saveEvery * 1000,
    );
    timer.unref();
    console.log(
      `  State file:         ${stateFile} (${restore ? "restored" : "new"}; saved every ${saveEvery} s and on exit)`,
    );
  }
  if (!isFirstWorker()) return watchStop(running, saver, stateFile, timer, undefined);
  const contract = running.mock.contract();
  const processes = workers > 1 ? ` (${workers} worker processes)` : "";
  if (contract.handwritten) {
    console.log(`Mock of the Conversational Agent Platform API listening on ${running.url}/v1${processes}`);
    console.log(`  API key (X-API-Key): ${running.apiKey}`);
  } else {
    const title = (contract.document.info as { title?: string } | undefined)?.title ?? "the document";
    console.log(`Mock of ${title} (${spec}) listening on ${running.url}${contract.basePath}${processes}`);
    console.log(`  Authenticate:       ${describeSecurity(contract)}`);
  }
  // What the generic layer serves (none of it for the kit's spec as it is): each collection and its id field.
  const handled = (id: string) => contract.handwritten && handlers[id as keyof typeof handlers] !== undefined;
  for (const line of formatGenericSummary(describeGeneric(contract, handled))) console.log(`  ${line}`);
  console.log(`  Docs:               ${running.url}/docs`);
  console.log(`  Dashboard:          ${running.url}/__mock/ui`);
  console.log(
    `  Control plane:      ${running.url}/__mock/health (${controlToken ? "needs the control token (Authorization: Bearer) or a workspace's key" : "open: no --control-token"})`,
  );
  console.log(`  Clock: ${mode}${mode === "real" ? ` x${speed}` : ""}; response validation ${validate ? "on" : "off"}`);
  // What the default workspace holds: a state file or a shared store already seeded may say otherwise than --scenario.
  const seeded = running.mock.services.workspaces.get(DEFAULT_WORKSPACE_ID)?.scenario;
  if (seeded) console.log(`  Scenario:           ${seeded} (the default workspace; a reset reseeds it)`);
  console.log(
    `  Request log:        ${logFormat}${logFormat === "off" ? "" : " (stdout; --log-format pretty|json|off)"}`,
  );
  if (store)
    console.log(
      `  Shared store:       ${store.replace(/\/\/[^@/]*@/, "//")} (${await running.mock.joined}; every mock on it is one mock)`,
    );
  if (upstream) {
    const door = running.mock.upstream!;
    console.log(
      `  Upstream:           ${upstream.replace(/\/\/[^@/]*@/, "//")} (${door.modes.describe()}; key: ${v["upstream-api-key"] ? "--upstream-api-key" : "the client's"})`,
    );
    console.log(
      `  Drift:              ${running.url}/__mock/drift (agent-platform-mock drift --url ${running.url})${door.recordInto ? `; recording into workspace ${door.recordInto} (key ${door.recordInto}-api-key)` : ""}`,
    );
  }
  const specWatch = kitRoot
    ? watchSpec({ root: kitRoot, mock: running.mock, log: (block) => console.log(block) })
    : undefined;
  if (specWatch)
    console.log(`  Watching:           ${kitRoot}/spec (a change regenerates generated/ and reloads the mock)`);
  watchStop(running, saver, stateFile, timer, specWatch);
}

/** Stops on SIGTERM/SIGINT, when npm's process goes, or (a worker) when the primary goes. */
function watchStop(
  running: RunningMock,
  saver: StateSaver | undefined,
  stateFile: string | undefined,
  timer: NodeJS.Timeout | undefined,
  specWatch: { close(): void } | undefined,
): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: finishing ${running.inFlight()} request(s) in flight`);
    clearInterval(timer);
    specWatch?.close();
    await running.close();
    if (saver) {
      try {
        await saver.save();
        console.log(`State saved to ${stateFile}`);
      } catch (error) {
        console.error(`state not saved: ${(error as Error).message}`);
        process.exit(1);
      }
    }
    process.exit(0);
  };
  // A reader of stdout that went away (a pipe from a killed launcher) must not crash the mock with EPIPE before it saves its state.
  process.stdout.on("error", () => undefined);
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
  // Killing `npm start`'s own pid must stop the mock too (see launcher-watch.ts); a worker's launcher is the primary.
  if (isWorker()) process.on("disconnect", () => void stop("primary gone"));
  else watchLauncher((why) => void stop(why));
}

main().catch((error) => {
  console.error((error as Error).message);
  process.exit(2);
});

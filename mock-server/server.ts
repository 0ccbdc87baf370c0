/**
 * startMock: the standalone server (`npm start`), a node:http server that hands every request straight
 * to the core (no Express on the way). Tests bind 127.0.0.1 on an ephemeral port and close it when
 * done. A client that sends its request too slowly is answered 408 and cut off once the request
 * timeout passes (checked at least every second), so one stalled upload cannot hold a connection
 * forever while others are served. close() is graceful: requests in flight finish first. It serves
 * Prometheus metrics at /__mock/metrics, and sends OpenTelemetry traces when OTEL_EXPORTER_OTLP_ENDPOINT
 * is set (node/metrics.ts, node/tracing.ts).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ClockMode } from "./core/clock.js";
import {
  createMock,
  DEFAULT_API_KEY,
  DEFAULT_MOCK_OPTIONS,
  DEFAULT_WORKSPACE_ID,
  type Mock,
  type MockOptions,
} from "./mock/mock.js";
import { RedisJournal } from "./store/redis/journal.js";
import { RedisLink } from "./store/redis/redis.js";
import { redisStore } from "./store/redis/redis-store.js";
import { sharedLeaseMs } from "./webhooks/dispatcher.js";
import { nodeDocsSite } from "./docs-site/site.js";
import { nodeDashboardSite } from "./dashboard/site.js";
import { answerClientError, answerExpectation } from "./node/connection-errors.js";
import { refuseOpenControl } from "./node/control-exposure.js";
import { nodeSha256 } from "./node/platform.js";
import { serveNode, type InFlight } from "./node/serve.js";
import { nodeUpstream, type NodeUpstream } from "./node/upstream-transport.js";
import type { RouteTable } from "./upstream/route-modes.js";
import * as driftRules from "./core/exchange-rules/drift.js";
import { combineTelemetry } from "./core/telemetry.js";
import type { MetricsText } from "./control/types.js";
import { createMetrics, mockSources, type Metrics } from "./node/metrics.js";
import { readSpecFile } from "./node/spec-file.js";
import { compileSpec } from "./core/compile-spec.js";
import { startTracing, type Env, type Tracing } from "./node/tracing.js";

export interface StartOptions extends Partial<Omit<MockOptions, "clock" | "upstream" | "spec">> {
  /**
   * What to serve: the kit's spec by default (or a GeneratedSpec); another OpenAPI 3.0/3.1 document as
   * a path to its YAML or JSON file (`--spec FILE`, local `$ref`s to other files bundled) or as a parsed
   * object, served by the generic layer alone under its first server URL's path.
   */
  spec?: MockOptions["spec"] | string;
  port?: number;
  host?: string;
  clock?: ClockMode | MockOptions["clock"];
  /** Whole-request deadline in ms (headers and body). */
  requestTimeoutMs?: number;
  /** Deadline for the headers alone; at most requestTimeoutMs. */
  headersTimeoutMs?: number;
  /** close(): how long requests in flight may take before their connections are cut. */
  shutdownGraceMs?: number;
  /** `redis://HOST:PORT[/DB]`: keep all state there, shared with every mock started with it (store/redis/). */
  store?: string;
  /** Stand in front of this deployment (its base URL, the one /v1 hangs under): /v1 requests go there. */
  upstream?: string;
  /** Sent to the upstream as X-API-Key in place of the client's key. */
  upstreamApiKey?: string;
  /** PEM text of the CA(s) that sign the upstream's certificate. */
  upstreamCa?: string;
  /** How long the upstream may take to start answering, or pause (default 30 s): 504 after. */
  upstreamTimeoutMs?: number;
  /** Per operation, upstream (default), mock or fallback: a table, or `OP=MODE,...` as on the command line. */
  route?: RouteTable | string;
  /** Keep the records the upstream returns in a workspace: its id, or true for `recorded`. */
  record?: string | boolean;
  /** Listen on a non-loopback host without a control token all the same (node/control-exposure.ts). */
  insecureControl?: boolean;
  /** Where the OTEL_* variables are read (tracing is on when OTEL_EXPORTER_OTLP_ENDPOINT is set): process.env by default. */
  env?: Env;
  /**
   * What GET /__mock/metrics answers, made from this process's metrics: with --workers, clusterAwareMetrics
   * (node/cluster-metrics.ts), which answers the sum of every worker's. This process's own by default.
   */
  metricsText?: (local: Metrics) => MetricsText;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;
export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;

export interface RunningMock {
  url: string;
  apiKey: string;
  mock: Mock;
  server: Server;
  /** Requests being served now. */
  inFlight(): number;
  /** The spans' exporter when OTEL_EXPORTER_OTLP_ENDPOINT is set; close() flushes it. */
  tracing?: Tracing;
  /** Stops accepting, lets requests in flight finish (up to the grace), then stops the mock's timers. */
  close(): Promise<void>;
}

export async function startMock(options: StartOptions = {}): Promise<RunningMock> {
  const {
    port = 0,
    host = "127.0.0.1",
    clock = "virtual",
    requestTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MS,
    headersTimeoutMs = 20_000,
    shutdownGraceMs = DEFAULT_SHUTDOWN_GRACE_MS,
    store,
    upstream: upstreamUrl,
    upstreamApiKey,
    upstreamCa,
    upstreamTimeoutMs,
    route,
    record,
    insecureControl,
    env = process.env,
    metricsText,
    spec: specOption,
    ...rest
  } = options;
  // A file is read (and its local references bundled) before anything opens: a bad one is one line.
  const spec = typeof specOption === "string" ? await readSpecFile(specOption) : specOption;
  const appOptions: Partial<MockOptions> = { ...rest, ...(spec && { spec }) };
  refuseOpenControl(host, appOptions.controlToken, insecureControl);
  const upstream = upstreamUrl
    ? upstreamSetup(
        { url: upstreamUrl, apiKey: upstreamApiKey, ca: upstreamCa, timeoutMs: upstreamTimeoutMs },
        route,
        record,
      )
    : undefined;
  const log = appOptions.log ?? DEFAULT_MOCK_OPTIONS.log;
  // The OpenTelemetry packages missing, or a URL that is none: one line, before anything opens.
  const tracing = startTracing(env, { log });
  try {
    await tracing?.ready;
  } catch (error) {
    await upstream?.transport.close();
    throw error;
  }
  // The gauges read the mock once it exists: at the first scrape, never before.
  let mock: Mock;
  const metrics = createMetrics(mockSources(() => mock));
  // Unreachable at start: the caller gets one line (npm start exits 2 with it), not a mock that answers 500.
  const shared = store ? await RedisLink.open(store, log) : undefined;
  try {
    mock = createMock(
      {
        sha256: nodeSha256,
        docs: nodeDocsSite({ apiKey: appOptions.apiKey ?? DEFAULT_API_KEY }),
        dashboard: nodeDashboardSite(),
        ...appOptions,
        telemetry: combineTelemetry(metrics, tracing, appOptions.telemetry),
        metrics: appOptions.metrics ?? (metricsText ? metricsText(metrics) : metrics),
        // On a shared store, an attempt whose process died is made again once its lease (clock time) runs out.
        ...(shared && { webhooks: { leaseMs: sharedLeaseMs(appOptions.webhooks?.timeoutMs), ...appOptions.webhooks } }),
        clock: typeof clock === "string" ? { mode: clock } : clock,
        ...(upstream && { upstream: upstream.setup }),
      },
      {
        compileDocument: compileSpec,
        ...(shared && {
          store: redisStore(shared),
          journal: (capacity: number) => new RedisJournal(shared, capacity),
        }),
      },
    );
  } catch (error) {
    // A route naming no operation of the spec: nothing may stay open behind the one line.
    await upstream?.transport.close();
    await shared?.close();
    await tracing?.shutdown();
    throw error;
  }
  try {
    await mock.joined;
  } catch (error) {
    await mock.close();
    await shared?.close();
    await tracing?.shutdown();
    throw new Error(`Cannot join the shared store at ${shared?.where()}: ${(error as Error).message}`);
  }
  const inFlight: InFlight = new Map();
  let closing = false;
  let drained: (() => void) | undefined;

  const headersTimeout = Math.min(headersTimeoutMs, requestTimeoutMs);
  const server = createServer(
    {
      requestTimeout: requestTimeoutMs,
      headersTimeout,
      // Node checks the timeouts on this period (30 s by default): a short timeout needs a short period.
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(headersTimeout / 4))),
      // A request without Host is served rather than refused with Node's bare 400.
      requireHostHeader: false,
    },
    (req, res) => {
      res.once("close", () => {
        if (inFlight.get(req.socket)?.res === res) inFlight.delete(req.socket);
        if (inFlight.size === 0) drained?.();
      });
      if (closing) res.setHeader("Connection", "close");
      void serveNode(mock.core, req, res, { inFlight });
    },
  );
  server.keepAliveTimeout = 5_000;
  server.on("clientError", answerClientError(mock.core, mock.services.clock, inFlight, requestTimeoutMs));
  server.on("checkExpectation", answerExpectation(mock.core));
  server.listen(port, host);
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const address = server.address() as AddressInfo;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${address.port}`;
  if (upstreamUrl && isOwnAddress(upstreamUrl, address.port, host)) {
    await new Promise((resolve) => server.close(resolve));
    await mock.close();
    await upstream?.transport.close();
    await shared?.close();
    await tracing?.shutdown();
    throw new Error(`--upstream ${upstreamUrl} is this mock itself (${url}): it would forward every request to itself`);
  }
  return {
    url,
    // On a shared store the key is the one the first process seeded it with.
    apiKey: mock.services.workspaces.get(DEFAULT_WORKSPACE_ID)?.apiKey ?? appOptions.apiKey ?? DEFAULT_API_KEY,
    mock,
    server,
    inFlight: () => inFlight.size,
    ...(tracing && { tracing }),
    async close() {
      closing = true;
      // Event streams never finish by themselves: ended now, they do not hold the drain below.
      mock.events.close();
      // Responses not yet started tell their clients the connection ends with them.
      for (const { res } of inFlight.values()) if (!res.headersSent) res.setHeader("Connection", "close");
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      if (inFlight.size > 0) {
        await new Promise<void>((resolve) => {
          drained = resolve;
          setTimeout(resolve, shutdownGraceMs).unref();
        });
      }
      server.closeAllConnections();
      await closed;
      await mock.close();
      await upstream?.transport.close();
      await shared?.close();
      // Last: the spans of the requests that just finished go out before close() resolves.
      await tracing?.shutdown();
    },
  };
}

function upstreamSetup(
  options: { url: string; apiKey?: string; ca?: string; timeoutMs?: number },
  route: RouteTable | string | undefined,
  record: string | boolean | undefined,
): { setup: NonNullable<MockOptions["upstream"]>; transport: NodeUpstream } {
  let parsed: URL;
  try {
    parsed = new URL(options.url);
  } catch {
    throw new Error(`--upstream must be an http(s) URL, got "${options.url}"`);
  }
  if (!/^https?:$/.test(parsed.protocol)) throw new Error(`--upstream must be an http(s) URL, got "${options.url}"`);
  if (/\/v1\/?$/.test(parsed.pathname))
    throw new Error(`--upstream is the base URL /v1 hangs under: drop the /v1 from "${options.url}"`);
  const transport = nodeUpstream(options);
  return {
    transport,
    setup: {
      transport,
      route,
      record,
      secrets: [options.apiKey].filter((k): k is string => Boolean(k)),
      rules: async () => driftRules,
    },
  };
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]", "0.0.0.0", "::", "[::]"]);

/** Whether the upstream URL names the door itself: the same port on this machine's loopback or the bound host. */
function isOwnAddress(upstream: string, port: number, host: string): boolean {
  const url = new URL(upstream);
  const upstreamPort = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  if (upstreamPort !== port) return false;
  return LOOPBACK.has(url.hostname) || url.hostname === host || url.hostname === `[${host}]`;
}

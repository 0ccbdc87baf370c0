/**
 * OpenTelemetry traces of the mock's requests, when the standard OTEL_EXPORTER_OTLP_ENDPOINT (or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set: one SERVER span per answered request, named by its
 * operationId, from the request's arrival to its answer, exported over OTLP/HTTP (JSON) in batches. A
 * `traceparent` the client sent is continued, so the mock's span sits inside the test's own trace.
 *
 * The OpenTelemetry packages are optional peers of the kit (like ioredis): imported only when the
 * variable is set, so a mock that is not traced neither loads nor needs them. Spans are made after the
 * fact from what the request log gets (start = answer time - duration), so tracing adds nothing to a
 * request's own path; the span carries the path (never the query) and no header, so no key reaches it.
 */
import type { SpanExporter } from "@opentelemetry/sdk-trace-base";
import type { RequestLogEntry } from "../core/exchange.js";

/**
 * An OpenTelemetry SpanExporter (@opentelemetry/sdk-trace-base), described by the little the kit's own
 * types need: an app type-checking against the kit needs no OpenTelemetry package installed.
 */
export interface SpanExporterLike {
  export(spans: never[], resultCallback: (result: { code: number; error?: Error }) => void): void;
  shutdown(): Promise<void>;
}

/** Where the variables come from: process.env unless a caller (a test) gives its own. */
export type Env = Record<string, string | undefined>;

export interface Tracing {
  /** The variable that turned tracing on (messages name it). */
  readonly variable: string;
  /** Where spans go. */
  readonly endpoint: string;
  /** Settles once the SDK is loaded; rejects with one line when its packages are missing. */
  readonly ready: Promise<void>;
  /** One span for this request (buffered until the SDK is loaded). */
  requestDone(entry: RequestLogEntry): void;
  /** Exports the spans not yet sent, then stops: a closing mock calls it, so SIGTERM loses none. */
  shutdown(): Promise<void>;
}

export const DEFAULT_SERVICE_NAME = "agent-platform-mock";

/** What `npm install` needs for tracing: the error for a missing one names them all. */
export const TRACING_PACKAGES = [
  "@opentelemetry/api",
  "@opentelemetry/sdk-trace-base",
  "@opentelemetry/exporter-trace-otlp-http",
  "@opentelemetry/resources",
  "@opentelemetry/semantic-conventions",
];

/** Requests answered before the SDK has loaded (the first milliseconds) wait for it; past this many, they are not traced. */
const MAX_WAITING = 1_000;

export interface TracingConfig {
  variable: string;
  /** The traces URL (…/v1/traces). */
  endpoint: string;
  serviceName: string;
  /** A protocol the exporter does not speak was asked for (it sends OTLP/HTTP JSON): told once at start. */
  warning?: string;
}

/** What the variables ask for; undefined when tracing is off (no endpoint, OTEL_SDK_DISABLED, OTEL_TRACES_EXPORTER=none). */
export function tracingConfig(env: Env): TracingConfig | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return undefined;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === "none") return undefined;
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  // As the specification says: the signal's own variable is the whole URL; the general one gets /v1/traces appended.
  const [variable, endpoint] = traces
    ? ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", traces]
    : base
      ? ["OTEL_EXPORTER_OTLP_ENDPOINT", `${base.replace(/\/+$/, "")}/v1/traces`]
      : [];
  if (!variable || !endpoint) return undefined;
  if (!/^https?:\/\//i.test(endpoint))
    throw new Error(`${variable} must be an http(s) URL (OTLP/HTTP), got "${traces ?? base}"`);
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL)?.trim();
  return {
    variable,
    endpoint,
    serviceName: env.OTEL_SERVICE_NAME?.trim() || DEFAULT_SERVICE_NAME,
    ...(protocol &&
      protocol !== "http/json" && {
        warning: `OTEL_EXPORTER_OTLP_PROTOCOL=${protocol}: the mock exports traces as OTLP/HTTP JSON (http/json) to ${endpoint}`,
      }),
  };
}

/** The W3C trace context a client sent: version 00, a trace id and a parent span id not all zeros. */
export function parseTraceparent(
  header: string | undefined,
): { traceId: string; spanId: string; traceFlags: number } | undefined {
  const found = header && /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(header.trim());
  if (!found || found[1] === "ff") return undefined;
  const [, , traceId, spanId, flags] = found;
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined;
  return { traceId, spanId, traceFlags: Number.parseInt(flags, 16) };
}

/** ok, error (an answer of 4xx or 5xx) or reset (a fault rule destroyed the connection). */
export function outcomeOf(status: number | null): "ok" | "error" | "reset" {
  return status === null ? "reset" : status >= 400 ? "error" : "ok";
}

/**
 * Tracing as the variables ask, or undefined when they do not. Returns at once: the SDK loads in the
 * background (`ready`), and requests answered meanwhile are traced once it has. `exporter` replaces
 * the OTLP one (tests).
 */
export function startTracing(
  env: Env = process.env,
  options: { exporter?: SpanExporterLike; log?: (line: string) => void } = {},
): Tracing | undefined {
  const config = tracingConfig(env);
  if (!config) return undefined;
  if (config.warning) options.log?.(config.warning);
  let record: ((entry: RequestLogEntry, endMs: number) => void) | undefined;
  let stop: (() => Promise<void>) | undefined;
  let waiting: { entry: RequestLogEntry; endMs: number }[] | undefined = [];
  const ready = loadSdk(config.variable).then((sdk) => {
    const made = spanMaker(sdk, config, options.exporter as SpanExporter | undefined);
    record = made.record;
    stop = made.shutdown;
    for (const { entry, endMs } of waiting ?? []) record(entry, endMs);
    waiting = undefined;
  });
  // Not traced after all: what waited is dropped, and the caller that awaits `ready` hears why.
  ready.catch(() => (waiting = undefined));
  let closed: Promise<void> | undefined;
  return {
    variable: config.variable,
    endpoint: config.endpoint,
    ready,
    requestDone(entry) {
      const endMs = performance.timeOrigin + performance.now();
      if (record) record(entry, endMs);
      else if (waiting && waiting.length < MAX_WAITING) waiting.push({ entry, endMs });
    },
    shutdown() {
      closed ??= ready.then(
        () => stop?.(),
        () => undefined,
      );
      return closed;
    },
  };
}

type Sdk = Awaited<ReturnType<typeof importSdk>>;

async function importSdk() {
  const [api, base, otlp, resources, semconv] = await Promise.all([
    import("@opentelemetry/api"),
    import("@opentelemetry/sdk-trace-base"),
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/resources"),
    import("@opentelemetry/semantic-conventions"),
  ]);
  return { api, base, otlp, resources, semconv };
}

async function loadSdk(variable: string): Promise<Sdk> {
  try {
    return await importSdk();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ERR_MODULE_NOT_FOUND") throw error;
    throw new Error(`${variable} needs the OpenTelemetry packages: npm install ${TRACING_PACKAGES.join(" ")}`);
  }
}

/**
 * The provider, its batch processor and exporter, kept to this mock: nothing is registered globally, so
 * an app that mounts the mock keeps its own OpenTelemetry setup.
 */
function spanMaker(
  { api, base, otlp, resources, semconv }: Sdk,
  config: TracingConfig,
  exporter?: SpanExporter,
): { record(entry: RequestLogEntry, endMs: number): void; shutdown(): Promise<void> } {
  const provider = new base.BasicTracerProvider({
    resource: resources.resourceFromAttributes({ [semconv.ATTR_SERVICE_NAME]: config.serviceName }),
    spanProcessors: [new base.BatchSpanProcessor(exporter ?? new otlp.OTLPTraceExporter({ url: config.endpoint }))],
  });
  const tracer = provider.getTracer(DEFAULT_SERVICE_NAME);
  return {
    record(entry, endMs) {
      const parent = parseTraceparent(entry.traceparent);
      const context = parent
        ? api.trace.setSpanContext(api.ROOT_CONTEXT, { ...parent, isRemote: true })
        : api.ROOT_CONTEXT;
      const attributes: Record<string, string | number> = {
        [semconv.ATTR_HTTP_REQUEST_METHOD]: entry.method,
        [semconv.ATTR_URL_PATH]: entry.path,
        "apm.outcome": outcomeOf(entry.status),
      };
      if (entry.status !== null) attributes[semconv.ATTR_HTTP_RESPONSE_STATUS_CODE] = entry.status;
      if (entry.operationId) attributes["apm.operation"] = entry.operationId;
      if (entry.workspaceId) attributes["apm.workspace"] = entry.workspaceId;
      if (entry.faultId) {
        attributes["apm.fault_id"] = entry.faultId;
        attributes["apm.fault"] = entry.faultKind ?? "delay";
      }
      if (entry.source) attributes["apm.source"] = entry.source;
      const span = tracer.startSpan(
        entry.operationId ?? `${entry.method} ${entry.path}`,
        { kind: api.SpanKind.SERVER, startTime: endMs - entry.durationMs, attributes },
        context,
      );
      // As the HTTP conventions have it for a server: a 4xx is the client's doing; a 5xx or a cut connection is an error.
      if (entry.status === null || entry.status >= 500)
        span.setStatus({
          code: api.SpanStatusCode.ERROR,
          ...(entry.status === null && { message: "connection reset" }),
        });
      span.end(endMs);
    },
    shutdown: () => provider.shutdown(),
  };
}

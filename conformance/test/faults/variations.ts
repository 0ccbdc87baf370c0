/**
 * Legitimate variations a correct deployment may show: the suite must NOT fail on any of them.
 * Each is played by the same proxy as the faults, over the whole suite.
 */
import { gzipSync } from "node:zlib";
import type { FaultHooks, ProxyResponse } from "./proxy.js";
import { eachTimestamp } from "./rewrite.js";

export interface Variation {
  id: string;
  description: string;
  /** --only pattern when part of the suite cannot be played through a proxy (said why). */
  only?: string;
  /** Levels at which the variation is legitimate (both unless a rule of the spec forbids it at `assumed`). */
  levels?: ("documented" | "assumed")[];
  /** The deployment serves the API under this path prefix (the suite gets the base URL with it). */
  prefix?: string;
  hooks(): FaultHooks;
}

const isJson = (res: ProxyResponse) => /json/i.test(res.headers["content-type"] ?? "") && res.body.length > 0;

/** Rewrites every JSON body of the reference's operations (the control plane is left alone). */
function rewriteJson(
  fn: (text: string, res: ProxyResponse) => { text: string; headers?: Record<string, string> },
): FaultHooks {
  return {
    response: (req, res) => {
      if (!req.operationId || !isJson(res)) return undefined;
      const out = fn(res.body.toString("utf8"), res);
      return { ...res, headers: { ...res.headers, ...out.headers }, body: Buffer.from(out.text) };
    },
  };
}

function reorderKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reorderKeys);
  if (value && typeof value === "object")
    return Object.fromEntries(
      Object.entries(value)
        .reverse()
        .map(([k, v]) => [k, reorderKeys(v)]),
    );
  return value;
}

const FLOAT_FIELDS = [
  "endCallOnSilenceDuration",
  "llmTemperature",
  "llmTopP",
  "ttsSpeed",
  "ttsTemperature",
  "ttsVolume",
  "aiStartsSpeakingPlan",
  "aiStopsSpeakingPlan",
];

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const MAPPED = /id_([0-9a-f]{8})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{12})/g;

/**
 * The deployment issues ids of another (valid) form: `id_` and 32 hex digits instead of UUIDs. The
 * mapping is applied to the control plane too, so the suite sees one coherent world. An id the client
 * chose itself (a UUID it made up for an unknown id, or gave a fixture) is never rewritten, anywhere.
 */
function otherIds(): FaultHooks {
  const back = (s: string) => s.replace(MAPPED, "$1-$2-$3-$4-$5");
  const chosenByClient = new Set<string>();
  const remember = (s: string) => {
    for (const id of s.match(UUID) ?? []) chosenByClient.add(id);
  };
  return {
    request: (req) => {
      remember(`${req.path}?${req.query}\n${req.body.toString("latin1")}`);
      const query = new URLSearchParams();
      for (const [k, v] of req.query) query.append(k, back(v));
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, back(v)]));
      return {
        ...req,
        path: back(req.path),
        query,
        headers,
        body: Buffer.from(back(req.body.toString("latin1")), "latin1"),
      };
    },
    response: (_req, res) => {
      if (!/json/i.test(res.headers["content-type"] ?? "")) return undefined;
      const text = res.body
        .toString("utf8")
        .replace(UUID, (id) => (chosenByClient.has(id) ? id : `id_${id.replace(/-/g, "")}`));
      return { ...res, body: Buffer.from(text) };
    },
  };
}

export const variations: Variation[] = [
  {
    id: "charset-utf-8",
    description: "application/json; charset=utf-8 on every JSON body",
    hooks: () => rewriteJson((text) => ({ text, headers: { "content-type": "application/json; charset=utf-8" } })),
  },
  {
    id: "charset-quoted-mixed-case",
    description: 'Application/JSON;Charset="UTF-8"',
    hooks: () => rewriteJson((text) => ({ text, headers: { "content-type": 'Application/JSON;Charset="UTF-8"' } })),
  },
  {
    id: "extra-headers",
    description: "rate-limit, cache, security and tracing headers",
    hooks: () => ({
      response: (req, res) =>
        req.operationId
          ? {
              ...res,
              headers: {
                ...res.headers,
                "x-ratelimit-limit": "1000",
                "x-ratelimit-remaining": "999",
                "cache-control": "no-store",
                "strict-transport-security": "max-age=63072000",
                vary: "Accept-Encoding",
                server: "nginx",
                "x-trace-id": "4bf92f3577b34da6a3ce929d0e0e4736",
                "set-cookie": "AWSALB=abc; Path=/",
              },
            }
          : undefined,
    }),
  },
  {
    id: "keys-reordered",
    description: "object keys in reverse order",
    hooks: () => rewriteJson((text) => ({ text: JSON.stringify(reorderKeys(JSON.parse(text))) })),
  },
  {
    id: "pretty-printed",
    description: "JSON indented with two spaces",
    hooks: () => rewriteJson((text) => ({ text: JSON.stringify(JSON.parse(text), null, 2) })),
  },
  {
    id: "floats-with-decimal-point",
    description: "float settings written 5.0, 1.0",
    hooks: () =>
      rewriteJson((text) => ({
        text: text.replace(new RegExp(`"(${FLOAT_FIELDS.join("|")})":(-?\\d+)(?=[,}])`, "g"), '"$1":$2.0'),
      })),
  },
  {
    id: "gzip",
    description: "bodies sent gzip-compressed",
    hooks: () => ({
      response: (req, res) =>
        req.operationId && res.body.length > 0
          ? { ...res, headers: { ...res.headers, "content-encoding": "gzip" }, body: gzipSync(res.body) }
          : undefined,
    }),
  },
  {
    id: "utc-offset-and-microseconds",
    description: "timestamps written +00:00 with microseconds (same instants, still UTC)",
    hooks: () =>
      rewriteJson((text) => ({
        text: JSON.stringify(
          eachTimestamp(JSON.parse(text), (iso) =>
            iso.replace(/(\.\d{3})?Z$/, (_m, ms: string | undefined) => `${ms ?? ".000"}000+00:00`),
          ),
        ),
      })),
  },
  {
    id: "null-campaign-omitted",
    description: "a call's null campaign and phoneNumber left out instead of null",
    // The record rule (an x-assumption of info) says a field without a value is null, never left out.
    levels: ["documented"],
    hooks: () => rewriteJson((text) => ({ text: JSON.stringify(omitNullRefs(JSON.parse(text))) })),
  },
  {
    // Section 1: paths are relative to {base_url}. The mock behind /api answers error paths relative to it (/v1/...).
    id: "path-prefix",
    description: "the deployment serves the API under /api (https://host/api/v1/...)",
    prefix: "/api",
    hooks: () => ({}),
  },
  {
    id: "empty-string-for-absent-text",
    description:
      "an optional text without a value is \"\" instead of null (a call's transcript, an integration's description)",
    // The record rule (an x-assumption of info) says a field without a value is null.
    levels: ["documented"],
    hooks: () => rewriteJson((text) => ({ text: JSON.stringify(emptyStrings(JSON.parse(text))) })),
  },
  {
    id: "page-size-cap",
    description:
      "the deployment caps the page size at 20 and echoes the size it served (section 8: maximum page size not shown)",
    hooks: () => ({
      request: (req) => {
        const size = Number(req.query.get("size"));
        if (!req.operationId?.startsWith("list") || !Number.isInteger(size) || size <= 20) return undefined;
        const query = new URLSearchParams(req.query);
        query.set("size", "20");
        return { ...req, query };
      },
    }),
  },
  {
    id: "other-valid-ids",
    description: "ids of another valid form (id_ and 32 hex digits), everywhere",
    // Webhook deliveries go from the mock straight to the suite's receiver, past the proxy: their ids cannot be mapped.
    only: "/^(?!webhooks\\/conversationStartedEvent)/",
    hooks: otherIds,
  },
];

/** transcript and description, where null, become "" wherever they appear (lists and single records). */
function emptyStrings(body: unknown): unknown {
  if (Array.isArray(body)) return body.map(emptyStrings);
  if (body && typeof body === "object") {
    const record = body as Record<string, unknown>;
    for (const [k, v] of Object.entries(record))
      record[k] = (k === "transcript" || k === "description") && v === null ? "" : emptyStrings(v);
  }
  return body;
}

function omitNullRefs(body: unknown): unknown {
  const strip = (call: Record<string, unknown>) => {
    if (call && typeof call === "object" && "callId" in call)
      for (const k of ["campaign", "phoneNumber"]) if (call[k] === null) delete call[k];
  };
  const b = body as Record<string, unknown>;
  if (Array.isArray(b?.data)) (b.data as Record<string, unknown>[]).forEach(strip);
  else strip(b);
  return body;
}

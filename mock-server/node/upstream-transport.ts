/**
 * How the Node doors reach the upstream (`--upstream`): undici, one connection pool per upstream, the
 * request body streamed through, the answer read whole as it was sent (compression kept: the client
 * gets the same bytes). A proxy's manners: hop-by-hop headers are not passed on (RFC 9110, 7.6.1), Host
 * names the upstream, X-Forwarded-* name the client, and `--upstream-api-key` replaces the client's key.
 * Every failure becomes an UpstreamFailure naming its cause, never a hang: the timeout bounds the wait
 * for the answer's headers and each pause in its body.
 */
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";
import type { Readable } from "node:stream";
import { Agent, request } from "undici";
import { endToEnd } from "../upstream/hop-by-hop.js";
import {
  UpstreamFailure,
  type UpstreamAnswer,
  type UpstreamRequest,
  type UpstreamTransport,
} from "../core/exchange.js";

export interface NodeUpstreamOptions {
  /** The upstream's base URL (the one /v1 hangs under): `https://staging.example.com`, or with a path prefix. */
  url: string;
  /** Sent as X-API-Key in place of the client's. */
  apiKey?: string;
  /** PEM of the CA(s) that sign the upstream's certificate (a private CA). */
  ca?: string;
  /** How long the upstream may take to start answering, and to pause within its answer. Default 30 s. */
  timeoutMs?: number;
}

export const DEFAULT_UPSTREAM_TIMEOUT_MS = 30_000;

export interface NodeUpstream extends UpstreamTransport {
  close(): Promise<void>;
}

export function nodeUpstream(options: NodeUpstreamOptions): NodeUpstream {
  const base = new URL(options.url);
  const prefix = base.pathname.replace(/\/+$/, "");
  const timeoutMs = options.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS;
  const target = `${base.hostname}:${base.port || (base.protocol === "https:" ? 443 : 80)}`;
  const agent = new Agent({
    connect: { ...(options.ca && { ca: options.ca }), timeout: timeoutMs },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });

  return {
    target,
    async forward(req: UpstreamRequest): Promise<UpstreamAnswer> {
      const headers = forwardedHeaders(req.headers, options.apiKey);
      const body = req.body?.stream as Readable | undefined;
      try {
        const answer = await request(`${base.origin}${prefix}${req.url}`, {
          method: req.method as "GET",
          headers,
          body: body ?? null,
          dispatcher: agent,
        });
        const bytes = new Uint8Array(await answer.body.arrayBuffer());
        const answerHeaders: Record<string, string | string[]> = {};
        for (const [name, value] of Object.entries(answer.headers))
          if (value !== undefined) answerHeaders[name.toLowerCase()] = value;
        return {
          status: answer.statusCode,
          headers: answerHeaders,
          body: bytes,
          text: async () => decode(bytes, answerHeaders["content-encoding"]),
        };
      } catch (error) {
        body?.destroy();
        throw failureOf(error);
      }
    },
    close: () => agent.close(),
  };
}

/** The request's end-to-end headers; Host is the upstream's, Expect was answered by the door (100 Continue). */
function forwardedHeaders(given: Record<string, string | string[] | undefined>, apiKey: string | undefined) {
  const out = endToEnd(given, ["host", "expect"]);
  if (apiKey) out["x-api-key"] = apiKey;
  const host = [given.host].flat()[0];
  if (host) out["x-forwarded-host"] = host;
  out["x-forwarded-proto"] = [given["x-forwarded-proto"]].flat()[0] ?? "http";
  return out;
}

/** The answer's text with its Content-Encoding undone; undefined when the coding is unknown or broken. */
function decode(bytes: Uint8Array, coding: string | string[] | undefined): string | undefined {
  const codings = [coding ?? []]
    .flat()
    .flatMap((c) => c.split(","))
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c && c !== "identity");
  let out = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  try {
    for (const c of codings.reverse()) {
      if (c === "gzip" || c === "x-gzip") out = gunzipSync(out);
      else if (c === "deflate") out = inflateSync(out);
      else if (c === "br") out = brotliDecompressSync(out);
      else return undefined;
    }
  } catch {
    return undefined;
  }
  return out.toString("utf8");
}

const TLS_CODES =
  /CERT|SSL|TLS|UNABLE_TO_(GET|VERIFY)|SELF_SIGNED|DEPTH_ZERO|HOSTNAME_MISMATCH|ERR_TLS|EPROTO|ALTNAME/i;

/** What went wrong, in one line a person understands; the cause's code kept for the one who debugs. */
function failureOf(error: unknown): UpstreamFailure {
  const chain: { code?: string; message?: string; name?: string }[] = [];
  for (let e = error as { cause?: unknown } | undefined; e && chain.length < 5; e = e.cause as typeof e)
    chain.push(e as (typeof chain)[number]);
  const codes = chain.map((e) => e.code ?? "").filter(Boolean);
  const has = (pattern: RegExp) => codes.some((c) => pattern.test(c));
  const detail = chain.map((e) => e.code ?? e.message).find(Boolean) ?? String(error);
  if (has(/UND_ERR_(CONNECT|HEADERS|BODY)_TIMEOUT|ETIMEDOUT/))
    return new UpstreamFailure("timeout", `no answer within the timeout (${detail})`);
  if (has(TLS_CODES) || chain.some((e) => /certificate|ssl|tls/i.test(e.message ?? "")))
    return new UpstreamFailure("tls", `TLS refused (${codes.find((c) => TLS_CODES.test(c)) ?? detail})`);
  if (has(/ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN/))
    return new UpstreamFailure("unreachable", `unreachable (${codes.find((c) => /^E[A-Z]/.test(c)) ?? detail})`);
  return new UpstreamFailure("cut", `the exchange was cut short (${detail})`);
}

/**
 * How the MSW door reaches the upstream: fetch, marked with MSW's bypass so the handlers do not catch
 * it again (the app's base URL may be the upstream's own). In the browser and in Node alike. fetch
 * undoes the answer's compression, so the answer goes back to the app uncompressed, its
 * Content-Encoding dropped; everything else passes as the upstream sent it.
 */
import { bypass } from "msw";
import {
  UpstreamFailure,
  type FormPart,
  type ForwardedBody,
  type UpstreamAnswer,
  type UpstreamRequest,
  type UpstreamTransport,
} from "../core/exchange.js";
import { endToEnd } from "../upstream/hop-by-hop.js";

export interface FetchUpstreamOptions {
  url: string;
  apiKey?: string;
  timeoutMs?: number;
}

export function fetchUpstream(options: FetchUpstreamOptions): UpstreamTransport {
  const base = new URL(options.url);
  const prefix = base.pathname.replace(/\/+$/, "");
  const timeoutMs = options.timeoutMs ?? 30_000;
  const target = `${base.hostname}:${base.port || (base.protocol === "https:" ? 443 : 80)}`;
  return {
    target,
    async forward(req: UpstreamRequest): Promise<UpstreamAnswer> {
      const headers = new Headers();
      // fetch writes Host and Content-Length itself.
      for (const [name, value] of Object.entries(endToEnd(req.headers, ["host", "content-length"])))
        headers.set(name, [value].flat().join(", "));
      if (options.apiKey) headers.set("x-api-key", options.apiKey);
      const body = (req.body?.stream as Request | undefined)?.body ?? null;
      const signal = AbortSignal.timeout(timeoutMs);
      let response: Response;
      let bytes: Uint8Array;
      try {
        response = await fetch(
          bypass(
            new Request(`${base.origin}${prefix}${req.url}`, {
              method: req.method,
              headers,
              body,
              signal,
              ...(body && { duplex: "half" }),
            } as RequestInit),
          ),
        );
        bytes = new Uint8Array(await response.arrayBuffer());
      } catch (error) {
        throw failureOf(error, signal);
      }
      const all: Record<string, string> = {};
      response.headers.forEach((value, name) => void (all[name] = value));
      // fetch has undone the compression and measured the body: those two headers no longer hold.
      const answerHeaders = endToEnd(all, ["content-encoding", "content-length"]);
      return {
        status: response.status,
        headers: answerHeaders,
        body: bytes,
        text: async () => new TextDecoder().decode(bytes),
      };
    },
  };
}

function failureOf(error: unknown, signal: AbortSignal): UpstreamFailure {
  if (signal.aborted) return new UpstreamFailure("timeout", "no answer within the timeout");
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  const code = cause?.code ?? "";
  if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO/.test(code)) return new UpstreamFailure("tls", `TLS refused (${code})`);
  if (/ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN/.test(code))
    return new UpstreamFailure("unreachable", `unreachable (${code})`);
  if (code) return new UpstreamFailure("cut", `the exchange was cut short (${code})`);
  return new UpstreamFailure("unreachable", `unreachable (${(error as Error)?.message ?? String(error)})`);
}

/** The request's body for the upstream: the request itself goes on; a clone is read for the checks. */
export function fetchForwardedBody(
  request: Request,
  readCopy: (
    copy: Request,
  ) => Promise<{ kind: "json"; text: string | undefined } | { kind: "multipart"; parts: FormPart[] }>,
): ForwardedBody {
  const copy = request.clone();
  return { stream: request, copy: readCopy(copy) };
}

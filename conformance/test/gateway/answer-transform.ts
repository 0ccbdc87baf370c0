/** What the gateway does to an upstream answer on its way back: undocumented fields and headers, compression. */
import { brotliCompressSync, gzipSync } from "node:zlib";

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** The undocumented fields added to JSON object answers: `servedBy` to every object (top level and items of `data`), `_trace` to list envelopes. */
export const EXTRA_FIELD_NAMES = ["_trace", "servedBy"] as const;

/** The undocumented headers added to every answer (`x-request-id` only when the service sent none). */
export const EXTRA_HEADER_NAMES = ["via", "x-gateway-request-id", "x-request-id"] as const;

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

export function addExtras(answer: Answer, id: string): Answer {
  const headers: Record<string, string> = { ...answer.headers, via: "1.1 gateway", "x-gateway-request-id": id };
  if (!headers["x-request-id"]) headers["x-request-id"] = id;
  let body = answer.body;
  if (/json/i.test(answer.headers["content-type"] ?? "") && body.length > 0) {
    try {
      const parsed: unknown = JSON.parse(body.toString("utf8"));
      if (isObject(parsed)) {
        // A record keeps the same extra field on every answer (E10 and E11 must still agree); a list's
        // envelope, which is no record, also carries the answer's own trace id.
        const stable = { servedBy: "edge-1" };
        Object.assign(parsed, stable);
        if (Array.isArray(parsed.data)) {
          parsed._trace = id;
          for (const item of parsed.data) if (isObject(item)) Object.assign(item, stable);
        }
        body = Buffer.from(JSON.stringify(parsed));
      }
    } catch {
      // Not JSON after all: leave it.
    }
  }
  return { ...answer, headers, body };
}

/** Whether an Accept-Encoding header admits `encoding` (q=0 refuses; `*` stands for any). */
export function accepts(header: string | undefined, encoding: string): boolean {
  if (!header) return false;
  let named: number | undefined;
  let star: number | undefined;
  for (const part of header.split(",")) {
    const [token, ...params] = part.trim().toLowerCase().split(";");
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (token === encoding) named = q;
    else if (token === "*") star = q;
  }
  const q = named ?? star ?? 0;
  return q > 0;
}

function vary(headers: Record<string, string>): Record<string, string> {
  const current = headers.vary;
  if (current && /(^|,)\s*(accept-encoding|\*)\s*(,|$)/i.test(current)) return headers;
  return { ...headers, vary: current ? `${current}, Accept-Encoding` : "Accept-Encoding" };
}

/** Compresses the body with `encoding` when the client accepts it; always announces Vary: Accept-Encoding. */
export function compress(
  answer: Answer,
  encoding: "gzip" | "br",
  acceptEncoding: string | undefined,
  method: string,
): Answer {
  const bodyless = method === "HEAD" || answer.status === 204 || answer.status === 304 || answer.body.length === 0;
  if (bodyless) return answer;
  const headers = vary(answer.headers);
  if (!accepts(acceptEncoding, encoding)) return { ...answer, headers };
  const body = encoding === "gzip" ? gzipSync(answer.body) : brotliCompressSync(answer.body);
  return { status: answer.status, headers: { ...headers, "content-encoding": encoding }, body };
}

/** One fuzz case: a request on the wire, what the spec says of it, and how it was made. */
import type { RequestSpec } from "../../conformance/lib/http.js";
import type { WireRequest } from "./wire.js";

/**
 * accept: valid by the spec, must not be refused as a bad request (400);
 * reject: must be refused with a 4xx;
 * any:    whatever the answer, never a 5xx and never a malformed error.
 */
export type Expectation = "accept" | "reject" | "any";

export interface FuzzCase {
  /** The operation whose route the request aims at; null for paths that are no operation. */
  operationId: string | null;
  kind: string;
  expect: Expectation;
  why: string;
  wire: WireRequest;
}

export function queryString(query: RequestSpec["query"] | [string, string][] | undefined): string {
  const pairs = Array.isArray(query)
    ? query
    : Object.entries(query ?? {})
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, String(v)]);
  return pairs.length === 0 ? "" : `?${new URLSearchParams(pairs as [string, string][]).toString()}`;
}

/** A request of the spec generator (conformance/fuzz/requests.ts) as it goes on the wire. */
export function toWire(request: RequestSpec): WireRequest {
  const headers: [string, string][] = [["Accept", "application/json"], ...Object.entries(request.headers ?? {})];
  let body: string | undefined;
  if (request.rawBody !== undefined) body = request.rawBody;
  else if (request.body !== undefined) {
    body = JSON.stringify(request.body);
    if (!headers.some(([name]) => name.toLowerCase() === "content-type"))
      headers.push(["Content-Type", "application/json"]);
  }
  return {
    method: request.method,
    target: request.path + queryString(request.query),
    headers,
    body,
    key: request.key === undefined ? "valid" : request.key,
  };
}

/** Header values may hold only tab, printable ASCII and Latin-1 (what Node lets a client send). */
export function headerSafe(value: string): string {
  return value.replace(/[^\t\x20-\x7e\x80-\xff]/g, "?");
}

export function setHeader(headers: [string, string][], name: string, value: string | null): [string, string][] {
  const rest = headers.filter(([n]) => n.toLowerCase() !== name.toLowerCase());
  return value === null ? rest : [...rest, [name, value]];
}

function preview(text: string, max: number): string {
  return text.length > max
    ? `${JSON.stringify(text.slice(0, max))}... (${text.length} characters)`
    : JSON.stringify(text);
}

/** A readable account of a case, for the report of a failure. */
export function describeCase(c: FuzzCase): string {
  const w = c.wire;
  const lines = [`${c.kind} (${c.why}); expected: ${c.expect}; operation: ${c.operationId ?? "none"}`];
  if (w.raw !== undefined) {
    lines.push(`raw bytes: ${preview(w.raw, 400)}`);
    return lines.join("\n");
  }
  lines.push(`${w.method} ${preview(w.target, 300)}`);
  lines.push(`key: ${w.key === "valid" ? "the workspace's key" : w.key === null ? "none" : preview(w.key, 80)}`);
  for (const [name, value] of w.headers) lines.push(`${name}: ${preview(value, 200)}`);
  if (w.chunked) lines.push("(body sent chunked)");
  if (w.body !== undefined) {
    const text = typeof w.body === "string" ? w.body : Buffer.from(w.body).toString("latin1");
    lines.push(`body: ${preview(text, 600)}`);
  }
  return lines.join("\n");
}

/** encodeURIComponent that also takes lone surrogates, as the (invalid) UTF-8 bytes a careless client sends. */
export function encodeAny(text: string): string {
  let out = "";
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    out +=
      code >= 0xd800 && code <= 0xdfff
        ? [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
            .map((b) => `%${b.toString(16).toUpperCase()}`)
            .join("")
        : encodeURIComponent(ch);
  }
  return out;
}

/**
 * A captured /v1 exchange made fit to leave the process: every secret replaced by `[redacted]` (by
 * name, then by value: a key or a password seen anywhere in the exchange is scrubbed wherever it shows
 * up again), the response body decoded from its Content-Encoding (the upstream door passes compressed
 * bytes unchanged), and each body cut at CAPTURE_LIMIT. The HAR export builds its entries from this,
 * and the shared journal (redis/journal.ts) keeps only this, never the captured exchange itself.
 *
 * Portable: the MSW door serves the HAR export in a browser, so no Buffer and no node: import here.
 * gzip and deflate are undone with DecompressionStream (Node and browsers); Brotli, which Node 20's
 * DecompressionStream lacks, with node:zlib where the runtime has it (process.getBuiltinModule), and
 * is left as base64 bytes where it has not.
 */
import type { FormPart } from "../core/exchange.js";
import { isJsonType, mediaType } from "../core/body.js";
import {
  isSecretField,
  isSecretQueryName,
  REDACTED,
  redactHeaders,
  redactJson,
  redactJsonText,
  SecretValues,
  secretsInHeaders,
  secretsInJson,
} from "../core/secrets.js";
import { CAPTURE_LIMIT, type CapturedExchange } from "./journal.js";

/** An exchange with no secret in it, its bodies cut at CAPTURE_LIMIT: plain JSON, as the shared journal stores it. */
export interface SafeExchange {
  /** The request's path and query (mount path included), secret query values and known secrets replaced. */
  url: string;
  requestHeaders: Record<string, string>;
  request?: SafeRequestBody;
  responseHeaders: Record<string, string>;
  response?: SafeContent;
}

/** A JSON body as text (cut at CAPTURE_LIMIT bytes), or a form's parts (files by name and size). */
export type SafeRequestBody = { text: string; bytes: number; cut: boolean } | { form: SafePart[] };

/** A form's field (its value cut where the form's fields pass CAPTURE_LIMIT together), or a file by name and size. */
export type SafePart = { name: string; value: string; cut?: true } | { name: string; fileName: string; bytes: number };

/** A response body: its content (Content-Encoding undone) as text, or as base64 when it is no UTF-8 text. */
export interface SafeContent {
  text: string;
  base64?: true;
  /** The body's size as sent (compressed when it was), whole. */
  sentBytes: number;
  /** The Content-Encoding undone in `text`; absent for a body sent as it is. */
  decoded?: string;
  /** The whole content's size; absent when a compressed body cut short leaves it unknown. */
  contentBytes?: number;
  /** `text` holds only the first CAPTURE_LIMIT bytes of the content. */
  cut: boolean;
}

/** A captured exchange the shared journal gives back: only its redacted form, in `safe`. */
export interface RedactedExchange extends CapturedExchange {
  requestHeaders: Record<string, string>;
  responseHeaders: Record<string, string>;
  requestBody?: undefined;
  responseBody?: undefined;
  safe: SafeExchange;
}

/** The captured exchange as the shared journal gives it back. */
export function redactedExchange(safe: SafeExchange): RedactedExchange {
  return { requestHeaders: safe.requestHeaders, responseHeaders: safe.responseHeaders, safe };
}

/** The safe form of an exchange: made now (a captured one), or as it was kept (a shared journal's). */
export function safeExchange(url: string, exchange: CapturedExchange): Promise<SafeExchange> {
  return "safe" in exchange ? Promise.resolve((exchange as RedactedExchange).safe) : redactExchange(url, exchange);
}

/**
 * Redacts an exchange. `url`: its path and query as the journal keeps it (secret query values already
 * replaced). Every secret is learnt before any text is written, so a value seen in the response (a
 * webhook's secret) is scrubbed from the request too.
 */
export async function redactExchange(url: string, exchange: CapturedExchange): Promise<SafeExchange> {
  const secrets = new SecretValues();
  secretsInHeaders(exchange.requestHeaders, secrets.remember);
  secretsInHeaders(exchange.responseHeaders, secrets.remember);
  const { requestBody } = exchange;
  if (requestBody && "json" in requestBody) secretsInJson(requestBody.json, secrets.remember);
  if (requestBody && "form" in requestBody)
    for (const part of requestBody.form) if ("value" in part && isSecretField(part.name)) secrets.remember(part.value);
  // The response's secret fields are replaced now, and their values learnt for the rest.
  const content = await contentOf(exchange);
  if (content && !content.base64 && looksLikeJson(exchange.responseHeaders, content.text))
    content.text = redactJsonText(content.text, secrets.remember);
  const { scrub } = secrets;
  if (content && !content.base64) content.text = scrub(content.text);
  return {
    url: scrub(redactQuery(url)),
    requestHeaders: redactHeaders(exchange.requestHeaders, scrub),
    ...(requestBody && { request: requestOf(requestBody, scrub) }),
    responseHeaders: redactHeaders(exchange.responseHeaders, scrub),
    ...(content && { response: content }),
  };
}

/** Secret query values as `[redacted]` (the journal wrote REDACTED for them: the HAR says it as the rest). */
function redactQuery(url: string): string {
  const q = url.indexOf("?");
  if (q === -1) return url;
  const pairs = url
    .slice(q + 1)
    .split("&")
    .map((pair) => {
      const name = pair.split("=")[0];
      return isSecretQueryName(decodeSafely(name)) ? `${name}=${REDACTED}` : pair;
    });
  return `${url.slice(0, q + 1)}${pairs.join("&")}`;
}

function decodeSafely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function requestOf(
  body: NonNullable<CapturedExchange["requestBody"]>,
  scrub: (text: string) => string,
): SafeRequestBody {
  if ("form" in body) {
    let left = CAPTURE_LIMIT;
    return {
      form: body.form.map((part) => {
        const safe = safePart(part, scrub);
        if (!("value" in safe)) return safe;
        const bytes = utf8.encode(safe.value);
        if (bytes.length <= left) {
          left -= bytes.length;
          return safe;
        }
        const value = textOf(bytes.subarray(0, left)) ?? "";
        left = 0;
        return { ...safe, value, cut: true as const };
      }),
    };
  }
  const text = JSON.stringify(redactJson(body.json, scrub)) ?? "";
  const bytes = utf8.encode(text);
  if (bytes.length <= CAPTURE_LIMIT) return { text, bytes: bytes.length, cut: false };
  return { text: textOf(bytes.subarray(0, CAPTURE_LIMIT)) ?? "", bytes: bytes.length, cut: true };
}

function safePart(part: FormPart, scrub: (text: string) => string): SafePart {
  if ("file" in part) return { name: part.name, fileName: part.file.filename, bytes: part.file.bytes };
  return { name: part.name, value: isSecretField(part.name) ? REDACTED : scrub(part.value) };
}

const utf8 = new TextEncoder();

/** UTF-8 text, or undefined for bytes that are not; a character the cut split at the end is dropped. */
function textOf(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes, { stream: true });
  } catch {
    return undefined;
  }
}

/** The response body as content: decoded, cut at CAPTURE_LIMIT, text when it is UTF-8. */
async function contentOf(exchange: CapturedExchange): Promise<SafeContent | undefined> {
  const body =
    exchange.responseBody ?? (exchange.responseJson === undefined ? undefined : JSON.stringify(exchange.responseJson));
  if (body === undefined) return undefined;
  const sent = typeof body === "string" ? utf8.encode(body) : body;
  const sentBytes = exchange.responseBytes ?? sent.length;
  const sentCut = sentBytes > sent.length;
  const codings = codingsOf(headerValue(exchange.responseHeaders, "content-encoding"));
  let content = sent.subarray(0, CAPTURE_LIMIT);
  let contentBytes: number | undefined = sentBytes;
  let cut = sentCut || sent.length > CAPTURE_LIMIT;
  let decoded: string | undefined;
  if (codings.length > 0) {
    const inflated = await inflateAll(sent, codings);
    if (inflated) {
      content = inflated.bytes.subarray(0, CAPTURE_LIMIT);
      // A compressed body cut short inflates as far as it goes: the whole content's size is not known.
      contentBytes = inflated.whole && !sentCut ? inflated.size : undefined;
      cut = sentCut || !inflated.whole || inflated.size > CAPTURE_LIMIT;
      decoded = codings.join(", ");
    }
  }
  // A JSON body cut short ends mid-character at worst; bytes that are no UTF-8 text go as base64.
  const text = typeof body === "string" && !decoded && !cut ? body : textOf(content);
  return {
    ...(text === undefined ? { text: base64(content), base64: true as const } : { text }),
    sentBytes,
    ...(decoded && { decoded }),
    ...(contentBytes !== undefined && { contentBytes }),
    cut,
  };
}

/** A JSON media type, or none given and the text starts as JSON does. */
function looksLikeJson(headers: Record<string, string | string[]>, text: string): boolean {
  const { type } = mediaType(headerValue(headers, "content-type"));
  return isJsonType(type) || (type === "" && /^\s*[{[]/.test(text));
}

/** A header's value whatever the case of its name (the mock writes `Content-Type`, an upstream `content-type`). */
export function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers))
    if (key.toLowerCase() === name) return [value ?? []].flat().join(", ");
  return undefined;
}

/** The codings applied, in the order they were (RFC 9110, 8.4): `gzip, br` was gzipped first. */
function codingsOf(value: string | undefined): string[] {
  if (!value) return [];
  return value
    .split(",")
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== "" && coding !== "identity")
    .map((coding) => (coding === "x-gzip" ? "gzip" : coding));
}

/** Inflates past every coding, the last applied first; undefined when one cannot be undone here. */
async function inflateAll(
  bytes: Uint8Array,
  codings: string[],
): Promise<{ bytes: Uint8Array; size: number; whole: boolean } | undefined> {
  let out = { bytes, size: bytes.length, whole: true };
  for (const coding of [...codings].reverse()) {
    const pair = inflater(coding);
    if (!pair) return undefined;
    const next = await inflate(out.bytes, pair);
    out = { ...next, whole: out.whole && next.whole };
  }
  return out;
}

/** How much inflated content is counted past the limit for its size; past this its size is not known. */
const COUNT_LIMIT = 256 * CAPTURE_LIMIT;

/** The first CAPTURE_LIMIT bytes, the size (counted up to COUNT_LIMIT) and whether the stream inflated whole. */
async function inflate(
  bytes: Uint8Array,
  pair: ReadableWritablePair<Uint8Array, Uint8Array>,
): Promise<{ bytes: Uint8Array; size: number; whole: boolean }> {
  const writer = pair.writable.getWriter();
  // Not awaited: the writer waits for the reader below; a stream cut short or corrupt fails both.
  writer.write(bytes).then(
    () => writer.close().catch(() => undefined),
    () => undefined,
  );
  const reader = pair.readable.getReader();
  const kept = new Uint8Array(CAPTURE_LIMIT);
  let size = 0;
  let whole = true;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (size < CAPTURE_LIMIT) kept.set(value.subarray(0, CAPTURE_LIMIT - size), size);
      size += value.length;
      if (size > COUNT_LIMIT) {
        whole = false;
        void reader.cancel().catch(() => undefined);
        break;
      }
    }
  } catch {
    // Cut short (the body was kept up to the limit) or corrupt: what came out is what there is.
    whole = false;
  }
  return { bytes: kept.subarray(0, Math.min(size, CAPTURE_LIMIT)), size, whole };
}

/** A web stream that undoes `coding`, or undefined where this runtime has none. */
function inflater(coding: string): ReadableWritablePair<Uint8Array, Uint8Array> | undefined {
  if (coding === "gzip" || coding === "deflate")
    return new DecompressionStream(coding) as unknown as ReadableWritablePair<Uint8Array, Uint8Array>;
  if (coding !== "br") return undefined;
  const zlib = builtin<typeof import("node:zlib")>("node:zlib");
  const stream = builtin<typeof import("node:stream")>("node:stream");
  if (!zlib || !stream) return undefined;
  return stream.Duplex.toWeb(zlib.createBrotliDecompress()) as unknown as ReadableWritablePair<Uint8Array, Uint8Array>;
}

/** A Node built-in module where the runtime is Node (>= 20.16), without an import a browser bundle would follow. */
function builtin<T>(id: string): T | undefined {
  const runtime = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  return runtime?.getBuiltinModule?.(id) as T | undefined;
}

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (let at = 0; at < bytes.length; at += 0x8000) binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  return btoa(binary);
}

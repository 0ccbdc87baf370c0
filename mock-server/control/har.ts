/**
 * GET /__mock/requests.har: the journal's /v1 exchanges as an HTTP Archive 1.2
 * (http://www.softwareishard.com/blog/har-12-spec/), which browser devtools, Playwright's routeFromHAR
 * and snippet generators open. The secrets are out before anything is written (store/safe-exchange.ts);
 * this file only lays the safe exchange out as HAR says. What HAR has no field for goes in `_` fields,
 * as HAR allows: the workspace, the operation, the fault rule and, in front of an upstream, the source.
 * A connection reset by a fault rule is written as browsers write an aborted request: status 0, `_error`.
 */
import { KIT_NAME, KIT_VERSION } from "../core/defaults.js";
import { STATUS_TEXT } from "../core/errors.js";
import { CAPTURE_LIMIT, type Recorded } from "../store/journal.js";
import { headerValue, type SafeContent, type SafeExchange, safeExchange } from "../store/safe-exchange.js";

export interface HarNameValue {
  name: string;
  value: string;
}

export interface HarParam {
  name: string;
  value?: string;
  fileName?: string;
  comment?: string;
}

export interface HarPostData {
  mimeType: string;
  text?: string;
  params?: HarParam[];
  comment?: string;
}

export interface HarContent {
  size: number;
  compression?: number;
  mimeType: string;
  text?: string;
  encoding?: "base64";
  comment?: string;
}

export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    cookies: [];
    headers: HarNameValue[];
    queryString: HarNameValue[];
    postData?: HarPostData;
    headersSize: -1;
    bodySize: number;
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    cookies: [];
    headers: HarNameValue[];
    content: HarContent;
    redirectURL: string;
    headersSize: -1;
    bodySize: number;
    /** A connection reset (fault rule `reset`): no answer came. */
    _error?: string;
  };
  cache: Record<string, never>;
  timings: { send: number; wait: number; receive: number };
  _workspaceId: string | null;
  _operationId: string | null;
  _faultId: string | null;
  _source?: string;
}

export interface Har {
  log: {
    version: "1.2";
    creator: { name: string; version: string };
    entries: HarEntry[];
  };
}

/** What a cut body says in its `comment`. */
export const CUT_COMMENT = `cut at ${CAPTURE_LIMIT} bytes`;

/**
 * The HAR of the journal's entries (oldest first, as `exchanges` gives them): the /v1 exchanges among
 * them, the newest `limit` of those when given.
 */
export async function harOf(recorded: readonly Recorded[], limit?: number): Promise<Har> {
  const exchanges = recorded.filter((r) => r.exchange !== undefined);
  const kept = limit === undefined ? exchanges : exchanges.slice(Math.max(0, exchanges.length - limit));
  const entries: HarEntry[] = [];
  for (const r of kept) entries.push(entryOf(r, await safeExchange(r.url, r.exchange!)));
  return { log: { version: "1.2", creator: { name: KIT_NAME, version: KIT_VERSION }, entries } };
}

function entryOf(r: Recorded, safe: SafeExchange): HarEntry {
  const time = Math.round(r.durationMs * 1000) / 1000;
  return {
    // `at` is when the answer went: the request started that long before.
    startedDateTime: new Date(r.atMs - time).toISOString(),
    time,
    request: requestOf(r, safe),
    response: responseOf(r, safe),
    cache: {},
    timings: { send: 0, wait: time, receive: 0 },
    _workspaceId: r.workspaceId,
    _operationId: r.operationId,
    _faultId: r.faultId,
    ...(r.source && { _source: r.source }),
  };
}

function requestOf(r: Recorded, safe: SafeExchange): HarEntry["request"] {
  const headers = safe.requestHeaders;
  const postData = postDataOf(safe);
  const length = Number(headerValue(headers, "content-length"));
  return {
    method: r.method,
    url: `${originOf(headers)}${safe.url}`,
    httpVersion: "HTTP/1.1",
    cookies: [],
    headers: listOf(headers),
    queryString: queryOf(safe.url),
    ...(postData && { postData }),
    headersSize: -1,
    bodySize: Number.isInteger(length) && length >= 0 ? length : postData ? -1 : 0,
  };
}

/**
 * Where the client sent the request, as it named it: its Host header (or the one a proxy in front says
 * it had), and the protocol that proxy says it used; `http://localhost` for a request without a Host
 * (the MSW door's fetch has none).
 */
function originOf(headers: Record<string, string>): string {
  const forwarded = headerValue(headers, "x-forwarded-host")?.split(",")[0].trim();
  const host = forwarded || headerValue(headers, "host") || "localhost";
  const proto = headerValue(headers, "x-forwarded-proto")?.split(",")[0].trim().toLowerCase();
  return `${proto === "https" ? "https" : "http"}://${host}`;
}

function queryOf(url: string): HarNameValue[] {
  const q = url.indexOf("?");
  if (q === -1) return [];
  return [...new URLSearchParams(url.slice(q + 1))].map(([name, value]) => ({ name, value }));
}

function postDataOf(safe: SafeExchange): HarPostData | undefined {
  const body = safe.request;
  if (!body) return undefined;
  const mimeType = headerValue(safe.requestHeaders, "content-type") ?? "";
  // A form is given as its fields, not its bytes: its boundary (in the headers) means nothing here, and
  // readers (httpsnippet) know a form by the bare media type.
  if ("form" in body)
    return {
      mimeType: "multipart/form-data",
      params: body.form.map((part) =>
        "value" in part
          ? { name: part.name, value: part.value, ...(part.cut && { comment: CUT_COMMENT }) }
          : { name: part.name, fileName: part.fileName, comment: `${part.bytes} bytes` },
      ),
    };
  return {
    mimeType: mimeType || "application/json",
    text: body.text,
    ...(body.cut && { comment: CUT_COMMENT }),
  };
}

function responseOf(r: Recorded, safe: SafeExchange): HarEntry["response"] {
  const headers = safe.responseHeaders;
  if (r.status === null)
    return {
      status: 0,
      statusText: "",
      httpVersion: "HTTP/1.1",
      cookies: [],
      headers: [],
      content: { size: 0, mimeType: "x-unknown" },
      redirectURL: "",
      headersSize: -1,
      bodySize: -1,
      _error: "connection reset",
    };
  return {
    status: r.status,
    statusText: STATUS_TEXT[r.status] ?? "",
    httpVersion: "HTTP/1.1",
    cookies: [],
    headers: listOf(headers),
    content: contentOf(headerValue(headers, "content-type"), safe.response),
    redirectURL: headerValue(headers, "location") ?? "",
    headersSize: -1,
    bodySize: safe.response?.sentBytes ?? 0,
  };
}

function contentOf(mimeType: string | undefined, content: SafeContent | undefined): HarContent {
  if (!content) return { size: 0, mimeType: mimeType ?? "x-unknown" };
  const size = content.contentBytes ?? keptBytes(content);
  return {
    size,
    ...(content.decoded && content.contentBytes !== undefined && { compression: size - content.sentBytes }),
    mimeType: mimeType ?? "x-unknown",
    text: content.text,
    ...(content.base64 && { encoding: "base64" as const }),
    ...(content.cut && { comment: CUT_COMMENT }),
  };
}

/** The size of the content kept, when the whole content's is not known. */
function keptBytes(content: SafeContent): number {
  return content.base64
    ? Math.floor((content.text.length * 3) / 4) - (content.text.match(/=*$/)?.[0].length ?? 0)
    : new TextEncoder().encode(content.text).length;
}

function listOf(headers: Record<string, string>): HarNameValue[] {
  return Object.entries(headers).map(([name, value]) => ({ name, value }));
}

/**
 * Recorded traffic, read into one shape whatever recorded it, for every command that judges it
 * (`agent-platform-mock coverage --from`, `npm run spec:diff -- --traffic`): a HAR 1.2 file
 * (the mock's GET /__mock/requests.har, whose entries carry `_workspaceId` and `_operationId`, or a
 * browser's devtools export, entries of every host included) or the journal's JSON (GET /__mock/requests:
 * method, path, query and status, no headers and no bodies). What a file did not record stays "unknown",
 * so that a change is never judged on a body nobody kept.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** A file that cannot be read as traffic: the commands answer it with exit 2 and this one line. */
export class TrafficFileError extends Error {
  constructor(
    readonly file: string,
    /** Why, without the file's name: "not JSON (...)". */
    readonly reason: string,
  ) {
    super(`${file}: ${reason}`);
  }
}

/** none: nothing was sent; json: parsed; opaque: there, but not JSON or cut short; unknown: not recorded. */
export type Body =
  | { state: "none" }
  | { state: "json"; value: unknown; mimeType: string }
  | { state: "opaque"; mimeType: string }
  | { state: "unknown"; mimeType?: string };

export interface Exchange {
  file: string;
  /** Position in its file, from 0. */
  index: number;
  format: "har" | "journal";
  /** The workspace that sent it (`_workspaceId`, the journal's workspaceId), else the file's name. */
  consumer: string;
  /** The workspace the file names, when it names one (a browser's HAR does not). */
  workspaceId?: string;
  /** The operation the mock named (`_operationId`, the journal's operationId), when it named one. */
  operationId?: string;
  method: string;
  /** As recorded: absolute in a HAR file, path and query in the journal. */
  url: string;
  host?: string;
  /** The URL path, percent-encoding kept (segments are decoded when compared). */
  path: string;
  query: [string, string][];
  /** Lower-case names; undefined when the file keeps no headers (the journal). */
  requestHeaders?: Map<string, string>;
  responseHeaders?: Map<string, string>;
  requestBody: Body;
  responseBody: Body;
  /** null: no answer (a reset connection, a request the browser blocked). */
  status: number | null;
  /** The mock exported it (the journal, or HAR entries with `_operationId`): every entry is API traffic. */
  fromMock: boolean;
}

export interface TrafficFile {
  path: string;
  format: "har" | "journal";
  entries: number;
}

export interface Traffic {
  files: TrafficFile[];
  exchanges: Exchange[];
}

export async function readTraffic(files: string[]): Promise<Traffic> {
  const out: Traffic = { files: [], exchanges: [] };
  for (const file of files) {
    const { format, exchanges } = parseTraffic(file, await readJson(file));
    out.files.push({ path: file, format, entries: exchanges.length });
    out.exchanges.push(...exchanges);
  }
  return out;
}

async function readJson(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    throw new TrafficFileError(file, "cannot be read");
  }
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch {
    throw new TrafficFileError(file, "not JSON (neither a HAR file nor the journal's JSON)");
  }
}

/** One file's content, HAR or journal; anything else is a TrafficFileError. */
export function parseTraffic(file: string, data: unknown): { format: "har" | "journal"; exchanges: Exchange[] } {
  const fallback = path.basename(file);
  if (isObj(data) && isObj(data.log) && Array.isArray(data.log.entries)) {
    const entries = data.log.entries;
    if (!entries.every((e) => isObj(e) && isObj(e.request) && typeof e.request.url === "string"))
      throw new TrafficFileError(file, "a HAR entry without request.url");
    return { format: "har", exchanges: entries.map((e, i) => fromHar(file, i, e as Obj, fallback)) };
  }
  if (Array.isArray(data)) {
    const bad = data.findIndex((e) => !(isObj(e) && typeof e.method === "string" && typeof e.path === "string"));
    if (bad !== -1)
      throw new TrafficFileError(file, `item ${bad} is not a journal entry (an object with method, path and status)`);
    return { format: "journal", exchanges: data.map((e, i) => fromJournal(file, i, e as Obj, fallback)) };
  }
  throw new TrafficFileError(
    file,
    "neither a HAR 1.2 file (log.entries) nor the journal's JSON array (GET /__mock/requests)",
  );
}

const JSON_TYPE = /^application\/(.+\+)?json$/i;
const bare = (mimeType: unknown): string =>
  String(mimeType ?? "")
    .split(";")[0]
    .trim()
    .toLowerCase();

function headers(list: unknown): Map<string, string> {
  const out = new Map<string, string>();
  for (const h of Array.isArray(list) ? list : []) {
    if (!isObj(h) || typeof h.name !== "string") continue;
    const name = h.name.toLowerCase();
    const value = String(h.value ?? "");
    out.set(name, out.has(name) ? `${out.get(name)}, ${value}` : value);
  }
  return out;
}

function parsed(text: string, mimeType: string): Body {
  if (!JSON_TYPE.test(mimeType)) return { state: "opaque", mimeType };
  try {
    return { state: "json", value: JSON.parse(text), mimeType };
  } catch {
    // A body the exporter cut at its cap (the mock says so in `comment`) cannot be judged.
    return { state: "opaque", mimeType };
  }
}

function requestBody(request: Obj, sent: Map<string, string>): Body {
  const post = request.postData;
  if (!isObj(post)) return { state: "none" };
  const mimeType = bare(post.mimeType ?? sent.get("content-type"));
  if (typeof post.text === "string") return post.text === "" ? { state: "none" } : parsed(post.text, mimeType);
  if (Array.isArray(post.params) && post.params.length) return { state: "opaque", mimeType };
  return { state: "unknown", mimeType };
}

function responseBody(method: string, status: number | null, response: Obj, got: Map<string, string>): Body {
  const content = isObj(response.content) ? response.content : {};
  const mimeType = bare(content.mimeType || got.get("content-type"));
  if (typeof content.text === "string" && content.text !== "") {
    const text = content.encoding === "base64" ? Buffer.from(content.text, "base64").toString("utf8") : content.text;
    return parsed(text, mimeType);
  }
  if (status === null) return { state: "none" };
  if (method === "HEAD" || status === 204 || status === 304 || content.size === 0) return { state: "none" };
  // Browsers export without bodies unless asked: the answer had one, nobody kept it.
  return { state: "unknown", mimeType: mimeType || undefined };
}

/** The workspace and the operation an entry names, those that are names. */
function named(workspaceId: unknown, operationId: unknown): Pick<Exchange, "workspaceId" | "operationId"> {
  return {
    ...(typeof workspaceId === "string" && workspaceId && { workspaceId }),
    ...(typeof operationId === "string" && operationId && { operationId }),
  };
}

function fromHar(file: string, index: number, entry: Obj, fallback: string): Exchange {
  const request = entry.request as Obj;
  const response = isObj(entry.response) ? entry.response : {};
  const method = String(request.method ?? "GET").toUpperCase();
  const raw = String(request.url);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    url = new URL(raw, "http://recorded.invalid");
  }
  const status = typeof response.status === "number" && response.status > 0 ? response.status : null;
  const sent = headers(request.headers);
  const got = headers(response.headers);
  return {
    file,
    index,
    format: "har",
    consumer: typeof entry._workspaceId === "string" && entry._workspaceId ? entry._workspaceId : fallback,
    ...named(entry._workspaceId, entry._operationId),
    method,
    url: raw,
    host: url.host === "recorded.invalid" ? undefined : url.host,
    path: url.pathname,
    query: [...url.searchParams],
    requestHeaders: sent,
    responseHeaders: got,
    requestBody: requestBody(request, sent),
    responseBody: responseBody(method, status, response, got),
    status,
    fromMock: "_operationId" in entry,
  };
}

function fromJournal(file: string, index: number, entry: Obj, fallback: string): Exchange {
  const query = typeof entry.query === "string" ? entry.query.replace(/^\?/, "") : "";
  const pathname = String(entry.path);
  return {
    file,
    index,
    format: "journal",
    consumer: typeof entry.workspaceId === "string" && entry.workspaceId ? entry.workspaceId : fallback,
    ...named(entry.workspaceId, entry.operationId),
    method: String(entry.method).toUpperCase(),
    url: query ? `${pathname}?${query}` : pathname,
    path: pathname,
    query: [...new URLSearchParams(query)],
    requestBody: { state: "unknown" },
    responseBody: { state: "unknown" },
    status: typeof entry.status === "number" ? entry.status : null,
    fromMock: true,
  };
}

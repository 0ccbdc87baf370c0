/**
 * Saved traffic as the answers coverage judges, for `agent-platform-mock coverage --from FILE`: an HTTP
 * Archive 1.2 (the mock's GET /__mock/requests.har, or a browser's devtools on an app that calls the
 * API) or the journal's JSON array (GET /__mock/requests). A HAR holds the bodies, so every variant but
 * the webhook deliveries can be told from it; the journal holds none, so only statuses can. Entries that
 * are not the API's (another host, a path outside /v1, a control-plane request, a request that got no
 * answer) are counted apart and left out.
 */
import { RouteTable } from "../../mock-server/core/routes.js";
import type { Catalogue } from "../../mock-server/core/coverage/catalogue.js";
import type { ObservedAnswer } from "../../mock-server/core/coverage/observe.js";

export type TrafficFormat = "har" | "journal";

export interface TrafficFilter {
  /** Only entries of this workspace (HAR `_workspaceId`, the journal's `workspaceId`). */
  workspace?: string;
  /** Only entries sent to this host (`host` or `host:port`), for a browser's HAR of many hosts. */
  host?: string;
}

export interface Traffic {
  format: TrafficFormat;
  /** The answers of the API's operations, in the file's order. */
  answers: ObservedAnswer[];
  /** Entries in the file. */
  entries: number;
  /** Why the others were left out, with how many. */
  left: { notApi: number; otherHost: number; otherWorkspace: number; noAnswer: number };
  /** Answers whose body is not JSON to read (none in a journal; a cut or binary body in a HAR). */
  withoutBody: number;
  /** The workspaces the counted entries name, and the hosts they went to. */
  workspaces: string[];
  hosts: string[];
  /** Entries that name no workspace (a browser's HAR): --workspace cannot select them. */
  withoutWorkspace: number;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

const routeTables = new WeakMap<Catalogue, RouteTable<string>>();

/** The catalogue's operations by method and path template (the templates are the spec's). */
function routesOf(catalogue: Catalogue): RouteTable<string> {
  let table = routeTables.get(catalogue);
  if (!table) {
    table = new RouteTable<string>();
    const added = new Set<string>();
    for (const v of catalogue.variants)
      if (v.kind === "status" && !added.has(v.operationId))
        added.add(v.operationId), table.add(v.method, v.path, v.operationId);
    routeTables.set(catalogue, table);
  }
  return table;
}

/** The API operation of a request: the one named, when the catalogue knows it, else the one its path matches. */
function operationOf(catalogue: Catalogue, named: unknown, method: string, pathname: string): string | undefined {
  if (typeof named === "string" && catalogue.operations.has(named)) return named;
  // A mock mounted under a prefix (/mock/v1/...) serves the spec's paths below it.
  const at = pathname.search(/\/v1(\/|$)/);
  if (at === -1) return undefined;
  try {
    const match = routesOf(catalogue).match(method.toUpperCase(), pathname.slice(at));
    return match.found ? match.target : undefined;
  } catch {
    return undefined; // a path parameter that does not decode: not a request the API answered
  }
}

function queryOf(url: URL): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of url.searchParams) {
    const before = query[name];
    query[name] = before === undefined ? value : Array.isArray(before) ? [...before, value] : [before, value];
  }
  return query;
}

/** A HAR content's JSON, or undefined (no text, a body cut at the journal's cap, not JSON). */
function harBody(content: unknown): unknown {
  if (!isObject(content) || typeof content.text !== "string" || content.text === "") return undefined;
  const text = content.encoding === "base64" ? Buffer.from(content.text, "base64").toString("utf8") : content.text;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function emptyTraffic(format: TrafficFormat, entries: number): Traffic {
  return {
    format,
    answers: [],
    entries,
    left: { notApi: 0, otherHost: 0, otherWorkspace: 0, noAnswer: 0 },
    withoutBody: 0,
    workspaces: [],
    hosts: [],
    withoutWorkspace: 0,
  };
}

function readHar(entries: unknown[], catalogue: Catalogue, filter: TrafficFilter): Traffic {
  const traffic = emptyTraffic("har", entries.length);
  const workspaces = new Set<string>();
  const hosts = new Set<string>();
  for (const entry of entries) {
    if (!isObject(entry) || !isObject(entry.request) || !isObject(entry.response)) {
      traffic.left.notApi++;
      continue;
    }
    const { request, response } = entry;
    let url: URL;
    try {
      url = new URL(String(request.url));
    } catch {
      traffic.left.notApi++;
      continue;
    }
    const operationId = operationOf(catalogue, entry._operationId, String(request.method ?? "GET"), url.pathname);
    if (!operationId) {
      traffic.left.notApi++;
      continue;
    }
    if (filter.host !== undefined && url.host !== filter.host && url.hostname !== filter.host) {
      traffic.left.otherHost++;
      continue;
    }
    const workspaceId = typeof entry._workspaceId === "string" ? entry._workspaceId : undefined;
    if (workspaceId === undefined) traffic.withoutWorkspace++;
    if (filter.workspace !== undefined && workspaceId !== filter.workspace) {
      traffic.left.otherWorkspace++;
      continue;
    }
    // Status 0: a browser's aborted request, or a connection a fault rule reset. No answer came.
    const status = Number(response.status);
    if (!Number.isInteger(status) || status < 100) {
      traffic.left.noAnswer++;
      continue;
    }
    const body = harBody(response.content);
    if (body === undefined) traffic.withoutBody++;
    if (workspaceId !== undefined) workspaces.add(workspaceId);
    hosts.add(url.host);
    traffic.answers.push({ operationId, status, query: queryOf(url), body });
  }
  traffic.workspaces = [...workspaces];
  traffic.hosts = [...hosts];
  return traffic;
}

function readJournal(entries: unknown[], catalogue: Catalogue, filter: TrafficFilter): Traffic | { problem: string } {
  const traffic = emptyTraffic("journal", entries.length);
  const workspaces = new Set<string>();
  for (const [i, entry] of entries.entries()) {
    if (!isObject(entry) || typeof entry.method !== "string" || typeof entry.path !== "string")
      return { problem: `item ${i} is not a journal entry (an object with method, path and status)` };
    let url: URL;
    try {
      url = new URL(
        `${entry.path}${typeof entry.query === "string" && entry.query ? `?${entry.query.replace(/^\?/, "")}` : ""}`,
        "http://journal",
      );
    } catch {
      traffic.left.notApi++;
      continue;
    }
    const operationId = operationOf(catalogue, entry.operationId, entry.method, url.pathname);
    if (!operationId) {
      traffic.left.notApi++;
      continue;
    }
    const workspaceId = typeof entry.workspaceId === "string" ? entry.workspaceId : undefined;
    if (workspaceId === undefined) traffic.withoutWorkspace++;
    if (filter.workspace !== undefined && workspaceId !== filter.workspace) {
      traffic.left.otherWorkspace++;
      continue;
    }
    // null: a fault rule reset the connection instead of answering.
    if (typeof entry.status !== "number") {
      traffic.left.noAnswer++;
      continue;
    }
    if (workspaceId !== undefined) workspaces.add(workspaceId);
    traffic.withoutBody++;
    traffic.answers.push({ operationId, status: entry.status, query: queryOf(url), body: undefined });
  }
  traffic.workspaces = [...workspaces];
  return traffic;
}

/** The traffic a file holds, or why it holds none this command reads. */
export function readTraffic(
  text: string,
  catalogue: Catalogue,
  filter: TrafficFilter = {},
): Traffic | { problem: string } {
  let json: unknown;
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (error) {
    return { problem: `it is not JSON (${(error as Error).message})` };
  }
  if (isObject(json) && isObject(json.log)) {
    if (!Array.isArray(json.log.entries)) return { problem: "its log has no entries array (HAR 1.2)" };
    return readHar(json.log.entries, catalogue, filter);
  }
  if (Array.isArray(json)) return readJournal(json, catalogue, filter);
  return {
    problem: "it is neither a HAR 1.2 ({ log: { entries } }) nor the journal's JSON array (GET /__mock/requests)",
  };
}

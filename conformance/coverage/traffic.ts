/**
 * Saved traffic as the answers coverage judges, for `agent-platform-mock coverage --from FILE`, read by
 * the kit's one reader of recorded traffic (conformance/recorded/traffic-file.ts): an HTTP Archive 1.2 (the mock's GET /__mock/requests.har, or a browser's devtools on an app that calls the
 * API) or the journal's JSON array (GET /__mock/requests). A HAR holds the bodies, so every variant but
 * the webhook deliveries can be told from it; the journal holds none, so only statuses can. Entries that
 * are not the API's (another host, a path outside /v1, a control-plane request, a request that got no
 * answer) are counted apart and left out.
 */
import { RouteTable } from "../../mock-server/core/routes.js";
import { parseTraffic, TrafficFileError, type Exchange } from "../recorded/traffic-file.js";
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

/** The query as the mock's pipeline gives it: one value, or the values of a repeated name in order. */
function queryOf(pairs: [string, string][]): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of pairs) {
    const before = query[name];
    query[name] = before === undefined ? value : Array.isArray(before) ? [...before, value] : [before, value];
  }
  return query;
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

/** The API's answers among the exchanges, those the filter keeps; the others counted by why they were left. */
function answersOf(format: TrafficFormat, exchanges: Exchange[], catalogue: Catalogue, filter: TrafficFilter): Traffic {
  const traffic = emptyTraffic(format, exchanges.length);
  const workspaces = new Set<string>();
  const hosts = new Set<string>();
  for (const exchange of exchanges) {
    const operationId = operationOf(catalogue, exchange.operationId, exchange.method, exchange.path);
    if (!operationId) {
      traffic.left.notApi++;
      continue;
    }
    const { host, workspaceId } = exchange;
    if (filter.host !== undefined && host !== filter.host && host?.replace(/:\d+$/, "") !== filter.host) {
      traffic.left.otherHost++;
      continue;
    }
    if (workspaceId === undefined) traffic.withoutWorkspace++;
    if (filter.workspace !== undefined && workspaceId !== filter.workspace) {
      traffic.left.otherWorkspace++;
      continue;
    }
    // No status: a browser's aborted request, or a connection a fault rule reset. No answer came.
    if (exchange.status === null) {
      traffic.left.noAnswer++;
      continue;
    }
    const body = exchange.responseBody.state === "json" ? exchange.responseBody.value : undefined;
    if (body === undefined) traffic.withoutBody++;
    if (workspaceId !== undefined) workspaces.add(workspaceId);
    if (host !== undefined) hosts.add(host);
    traffic.answers.push({ operationId, status: exchange.status, query: queryOf(exchange.query), body });
  }
  traffic.workspaces = [...workspaces];
  traffic.hosts = [...hosts];
  return traffic;
}

/** The traffic a file holds, or why it holds none this command reads. */
export function readTraffic(
  text: string,
  catalogue: Catalogue,
  filter: TrafficFilter = {},
  file = "traffic",
): Traffic | { problem: string } {
  let json: unknown;
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (error) {
    return { problem: `it is not JSON (${(error as Error).message})` };
  }
  if (isObject(json) && isObject(json.log) && !Array.isArray(json.log.entries))
    return { problem: "its log has no entries array (HAR 1.2)" };
  try {
    const { format, exchanges } = parseTraffic(file, json);
    return answersOf(format, exchanges, catalogue, filter);
  } catch (error) {
    if (error instanceof TrafficFileError) return { problem: error.reason };
    throw error;
  }
}

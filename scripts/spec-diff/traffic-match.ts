/**
 * Which operation of the BASE spec each recorded exchange called: the one the traffic was recorded
 * against. The URL path is matched on its last segments, so a base path in front (`/api/v1/calls`
 * behind a gateway, `/mock/v1/calls` under Express) does not matter; the template with the most
 * literal segments wins (`/v1/calls/batch` before `/v1/calls/{callId}`). What is not matched is either
 * "unmatched" (API traffic the base spec does not know: a /v1 path from the mock, or from a host that
 * also carried matched traffic) or "ignored" (a browser's other requests, the mock's control plane,
 * CORS preflights the spec does not describe).
 */
import { operations, type Operation } from "./compare.js";
import type { Exchange } from "../../conformance/recorded/traffic-file.js";
import type { Obj } from "./view.js";

export interface Matched {
  exchange: Exchange;
  /** compare.ts's key, `GET /v1/calls/{}`: what change locations name. */
  key: string;
  operation: Operation;
  /** The path parameters' raw segments, by position in the template. */
  pathParams: string[];
}

export interface TrafficMatch {
  matched: Matched[];
  unmatched: Exchange[];
  ignored: Exchange[];
}

interface Template {
  template: string;
  segments: (string | null)[];
  literals: number;
}

const decode = (segment: string): string => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

function templates(ops: Map<string, Operation>): Template[] {
  const found = new Map<string, Template>();
  for (const o of ops.values()) {
    if (o.webhook || found.has(o.template)) continue;
    const segments = o.template
      .split("/")
      .slice(1)
      .map((s) => (/^\{[^}]*\}$/.test(s) ? null : s));
    found.set(o.template, { template: o.template, segments, literals: segments.filter((s) => s !== null).length });
  }
  // Most literal segments first, then the longest: the first template that fits is the most specific.
  return [...found.values()].sort((a, b) => b.literals - a.literals || b.segments.length - a.segments.length);
}

/** The template the path ends with, and the values of its parameters. */
function templateOf(list: Template[], path: string): { template: string; params: string[] } | undefined {
  const parts = path.split("/").slice(1);
  for (const t of list) {
    if (parts.length < t.segments.length) continue;
    const tail = parts.slice(parts.length - t.segments.length);
    const params: string[] = [];
    const ok = t.segments.every((s, i) =>
      s === null ? tail[i] !== "" && params.push(tail[i]) > 0 : decode(tail[i]) === s,
    );
    if (ok) return { template: t.template, params };
  }
  return undefined;
}

const looksLikeApi = (path: string): boolean => /(^|\/)v1(\/|$)/.test(path);

export function matchTraffic(base: Obj, exchanges: Exchange[]): TrafficMatch {
  const ops = operations(base);
  const list = templates(ops);
  const out: TrafficMatch = { matched: [], unmatched: [], ignored: [] };
  const misses: Exchange[] = [];
  const apiHosts = new Set<string>();
  for (const exchange of exchanges) {
    const found = templateOf(list, exchange.path);
    const key = found && `${exchange.method} ${found.template.replace(/\{[^}]*\}/g, "{}")}`;
    const operation = key ? ops.get(key) : undefined;
    if (found && key && operation) {
      out.matched.push({ exchange, key, operation, pathParams: found.params });
      if (exchange.host) apiHosts.add(exchange.host);
    } else if (exchange.method === "OPTIONS") out.ignored.push(exchange);
    else misses.push(exchange);
  }
  // Decided after every file is matched: a browser's host is an API host when it served matched traffic.
  for (const exchange of misses) {
    const api = looksLikeApi(exchange.path) && (exchange.fromMock || (!!exchange.host && apiHosts.has(exchange.host)));
    (api ? out.unmatched : out.ignored).push(exchange);
  }
  return out;
}

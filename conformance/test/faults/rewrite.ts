/** Small tools the fault table is written with: JSON rewrites, error bodies, re-paginated lists. */
import type { FaultHooks, ProxyContext, ProxyRequest, ProxyResponse } from "./proxy.js";

export type Json = any;

export function parse(res: ProxyResponse): Json {
  try {
    return res.body.length ? JSON.parse(res.body.toString("utf8")) : undefined;
  } catch {
    return undefined;
  }
}

export function withJson(res: ProxyResponse, body: Json, extra: Partial<ProxyResponse> = {}): ProxyResponse {
  return {
    ...res,
    headers: { ...res.headers, "content-type": res.headers["content-type"] ?? "application/json" },
    body: Buffer.from(JSON.stringify(body)),
    ...extra,
  };
}

export function jsonResponse(status: number, body: Json): ProxyResponse {
  return {
    status,
    headers: { "content-type": "application/json" },
    body: Buffer.from(body === undefined ? "" : JSON.stringify(body)),
  };
}

const STATUS_TEXT: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  413: "Payload Too Large",
  415: "Unsupported Media Type",
  500: "Internal Server Error",
};

/** A well-formed 2.2 error body for `req`, as a deployment would write it. */
export function errorResponse(req: ProxyRequest, status: number, message = "failed"): ProxyResponse {
  return jsonResponse(status, {
    timestamp: new Date().toISOString(),
    status,
    error: STATUS_TEXT[status],
    message,
    path: req.path,
  });
}

/** Hooks that apply only to the given operations. */
export function on(ops: string | string[], hooks: FaultHooks): FaultHooks {
  const set = new Set(Array.isArray(ops) ? ops : [ops]);
  const applies = (req: ProxyRequest) => req.operationId !== undefined && set.has(req.operationId);
  return {
    request: hooks.request && ((req, ctx) => (applies(req) ? hooks.request!(req, ctx) : undefined)),
    response: hooks.response && ((req, res, ctx) => (applies(req) ? hooks.response!(req, res, ctx) : undefined)),
  };
}

type StatusFilter = number | "2xx" | "4xx";
const statusMatches = (status: number, want: StatusFilter) =>
  want === "2xx" ? status < 300 : want === "4xx" ? status >= 400 && status < 500 : status === want;

/** Rewrites JSON bodies of responses of `ops` with the given status; `mutate` may return a new body. */
export function mutate(
  ops: string | string[],
  status: StatusFilter,
  fn: (body: Json, req: ProxyRequest, ctx: ProxyContext) => Json | void,
): FaultHooks {
  return on(ops, {
    response: (req, res, ctx) => {
      if (!statusMatches(res.status, status)) return undefined;
      const body = parse(res);
      if (body === undefined) return undefined;
      const out = fn(body, req, ctx);
      return withJson(res, out === undefined ? body : out);
    },
  });
}

/** Rewrites every item of a list response (200). */
export function mutateItems(op: string, fn: (item: Json, req: ProxyRequest) => void): FaultHooks {
  return mutate(
    op,
    200,
    (body, req) => void (Array.isArray(body.data) && body.data.forEach((item: Json) => fn(item, req))),
  );
}

/** Replaces the response status (and optionally the body) of responses of `ops` that had status `from`. */
export function restatus(
  ops: string | string[],
  from: number,
  to: number,
  body?: (req: ProxyRequest, res: ProxyResponse) => Json,
): FaultHooks {
  return on(ops, {
    response: (req, res) => {
      if (res.status !== from) return undefined;
      if (body) return { ...jsonResponse(to, body(req, res)) };
      const parsed = parse(res);
      if (parsed && typeof parsed === "object" && from >= 400 && to >= 400)
        return withJson(res, { ...parsed, status: to, error: STATUS_TEXT[to] ?? parsed.error }, { status: to });
      return { ...res, status: to };
    },
  });
}

export const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

/** Applies `fn` to every ISO timestamp string in `value` (in place for objects and arrays). */
export function eachTimestamp(value: Json, fn: (iso: string, key: string) => Json): Json {
  if (Array.isArray(value)) return value.map((v) => eachTimestamp(v, fn));
  if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value))
      value[k] = typeof v === "string" && ISO.test(v) ? fn(v, k) : eachTimestamp(v, fn);
  }
  return value;
}

export function chainHooks(...list: FaultHooks[]): FaultHooks {
  return {
    async request(req, ctx) {
      for (const h of list) {
        const r = await h.request?.(req, ctx);
        if (r) return r;
      }
      return undefined;
    },
    async response(req, res, ctx) {
      let current = res;
      for (const h of list) current = (await h.response?.(req, current, ctx)) ?? current;
      return current;
    },
  };
}

const TOTAL_FIELD: Record<string, string> = { listPhoneNumbers: "totalCounts" };

export interface RelistOptions {
  /** Query parameters the faulty deployment ignores (not sent upstream). */
  ignore?: string[];
  /** Rewrites the query before the list is read. */
  query?: (q: URLSearchParams) => void;
  /** A second request (given the first, as sent upstream) whose items the faulty deployment appends. */
  also?: (upstream: ProxyRequest) => ProxyRequest | undefined;
  /** Rewrites the whole filtered list, in the order the mock returns it. */
  items?: (items: Json[]) => Json[];
  /** Which slice a page holds (a deployment's offset arithmetic). */
  slice?: (items: Json[], page: number, size: number) => Json[];
  /** Rewrites the wrapper after it is built. */
  wrapper?: (body: Json, page: number, size: number, total: number) => void;
}

/**
 * A list operation re-implemented on top of the mock: the whole filtered list is read upstream, then
 * `options` decide what the faulty deployment does with order, filters and page slices. Requests the
 * mock would reject (bad page or size) pass through untouched.
 */
export function relist(op: string, options: RelistOptions): FaultHooks {
  return on(op, {
    async request(req, ctx) {
      const page = req.query.get("page") ?? "0";
      const size = req.query.get("size") ?? "10";
      if (!/^\d+$/.test(page) || !/^\d+$/.test(size) || Number(size) < 1) return undefined;
      const query = new URLSearchParams(req.query);
      for (const name of options.ignore ?? []) query.delete(name);
      options.query?.(query);
      query.set("page", "0");
      query.set("size", "100000");
      const first = { ...req, query };
      const upstream = await ctx.forward(first);
      const body = parse(upstream);
      if (upstream.status !== 200 || !Array.isArray(body?.data)) return upstream;
      const second = options.also?.(first);
      if (second) {
        const more = parse(await ctx.forward(second));
        if (Array.isArray(more?.data)) body.data.push(...more.data);
      }
      const totalField = TOTAL_FIELD[op] ?? "totalCount";
      const items = options.items ? options.items(body.data) : body.data;
      const p = Number(page);
      const s = Number(size);
      const data = options.slice ? options.slice(items, p, s) : items.slice(p * s, p * s + s);
      const totalPages = Math.ceil(items.length / s);
      const wrapper: Json = {
        data,
        page: p,
        size: s,
        [totalField]: items.length,
        totalPages,
        hasNext: p + 1 < totalPages,
        hasPrevious: p > 0,
      };
      options.wrapper?.(wrapper, p, s, items.length);
      return withJson(upstream, wrapper);
    },
  });
}

/** JSON body of a request, when it has one. */
export function requestJson(req: ProxyRequest): Json {
  try {
    return req.body.length ? JSON.parse(req.body.toString("utf8")) : undefined;
  } catch {
    return undefined;
  }
}

export function withRequestJson(req: ProxyRequest, body: Json): ProxyRequest {
  return { ...req, body: Buffer.from(JSON.stringify(body)) };
}

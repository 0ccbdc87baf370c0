/**
 * A loopback proxy in front of the kit's mock that plays ONE fault (or one legitimate variation):
 * its hooks may rewrite a request before it is forwarded, answer it themselves, or rewrite the
 * response. Everything else passes through untouched, the /__mock control plane included, so the
 * suite still recognises the mock and builds its fixtures.
 */
import { Agent, createServer, request, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";
import { operations } from "../../lib/spec.js";

export interface ProxyRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string>;
  body: Buffer;
  /** The reference operation the request addresses, when it addresses one. */
  operationId?: string;
  params: Record<string, string>;
}

export interface ProxyResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export interface ProxyContext {
  /** Sends a request to the mock as it is (hooks are not applied again). */
  forward(req: ProxyRequest): Promise<ProxyResponse>;
  /** The last API key the mock accepted on /v1, for faults that accept any key. */
  goodKey?: string;
  /** State a fault keeps between requests. */
  memory: Map<string, unknown>;
}

type Maybe<T> = T | void | undefined;

export interface FaultHooks {
  request?(
    req: ProxyRequest,
    ctx: ProxyContext,
  ): Maybe<ProxyRequest | ProxyResponse> | Promise<Maybe<ProxyRequest | ProxyResponse>>;
  response?(
    req: ProxyRequest,
    res: ProxyResponse,
    ctx: ProxyContext,
  ): Maybe<ProxyResponse> | Promise<Maybe<ProxyResponse>>;
}

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "content-length",
  "content-encoding",
  "host",
]);

const routes = [...operations.values()].map((op) => {
  const names: string[] = [];
  const source = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => (names.push(name), "([^/]+)"));
  return { op, names, regex: new RegExp(`^${source}$`) };
});

export function matchOperation(method: string, path: string): { operationId?: string; params: Record<string, string> } {
  for (const { op, names, regex } of routes) {
    const m = op.method === method ? regex.exec(path) : null;
    if (m)
      return {
        operationId: op.operationId,
        params: Object.fromEntries(names.map((n, i) => [n, safeDecode(m[i + 1])])),
      };
  }
  return { params: {} };
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export function isResponse(x: ProxyRequest | ProxyResponse): x is ProxyResponse {
  return "status" in x;
}

/** `prefix`: the proxy serves the mock under it (a deployment behind a path prefix); other paths answer 404. */
export async function startFaultProxy(
  upstream: string,
  hooks: FaultHooks,
  prefix = "",
): Promise<{ url: string; close(): Promise<void> }> {
  // node:http rather than fetch on the hop to the mock: fetch copies a body twice through its streams
  // (the 25 MB uploads included), and the suite runs ~200 times through this proxy in one test file.
  const agent = new Agent({ keepAlive: true });
  const ctx: ProxyContext = {
    memory: new Map(),
    async forward(req) {
      const url = new URL(req.path, upstream);
      url.search = req.query.toString();
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(k)) headers[k] = v;
      // As fetch does: a GET or HEAD goes without a body, anything else with its length.
      const bodyless = req.method === "GET" || req.method === "HEAD";
      if (!bodyless) headers["content-length"] = String(req.body.length);
      const res = await exchange(agent, url, req.method, headers, bodyless ? undefined : req.body);
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(res.headers))
        if (v !== undefined && !HOP_BY_HOP.has(k)) out[k] = Array.isArray(v) ? v.join(", ") : v;
      const response = { status: res.statusCode ?? 502, headers: out, body: decoded(res, await readAll(res)) };
      if (req.operationId && response.status !== 401 && req.headers["x-api-key"])
        ctx.goodKey = req.headers["x-api-key"];
      return response;
    },
  };
  const server: Server = createServer(async (incoming, outgoing) => {
    try {
      const chunks: Buffer[] = [];
      for await (const c of incoming) chunks.push(c as Buffer);
      const url = new URL(incoming.url ?? "/", "http://proxy");
      if (prefix && !url.pathname.startsWith(`${prefix}/`))
        return void outgoing.writeHead(404, { "content-type": "text/plain" }).end("no route");
      url.pathname = url.pathname.slice(prefix.length);
      const method = incoming.method ?? "GET";
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(incoming.headers))
        if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(",") : v;
      let req: ProxyRequest = {
        method,
        path: url.pathname,
        query: url.searchParams,
        headers,
        body: Buffer.concat(chunks),
        ...matchOperation(method, url.pathname),
      };
      const early = await hooks.request?.(req, ctx);
      let res: ProxyResponse;
      if (early && isResponse(early)) res = early;
      else {
        if (early) req = early;
        res = await ctx.forward(req);
        res = (await hooks.response?.(req, res, ctx)) ?? res;
      }
      outgoing.writeHead(res.status, res.headers).end(res.body);
    } catch (error) {
      // A broken hook must show as a broken target, never hang the suite.
      outgoing.writeHead(502, { "content-type": "text/plain" }).end(`fault proxy: ${(error as Error).stack ?? error}`);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        agent.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** One request to the mock; resolves with the response as soon as its head arrives. */
function exchange(
  agent: Agent,
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: Buffer | undefined,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method, headers, agent }, resolve);
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

async function readAll(res: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of res) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** The body as fetch hands it over: inflated when the mock compressed it (Content-Encoding is then dropped). */
function decoded(res: IncomingMessage, body: Buffer): Buffer {
  if (body.length === 0) return body;
  switch (String(res.headers["content-encoding"] ?? "").toLowerCase()) {
    case "gzip":
    case "x-gzip":
      return gunzipSync(body);
    case "deflate":
      return inflateSync(body);
    case "br":
      return brotliDecompressSync(body);
    default:
      return body;
  }
}

/**
 * Upstreams of the tests' own for the door (startMock({ upstream })): a node:http server on loopback that
 * answers a fixed table of routes (method, path and query as sent) with the answer given, whatever the
 * key, and 404 text to anything else. The answers start from valid bodies read from a real mock
 * (realAnswer), then one thing is broken, so a test knows exactly what the door's checks should find.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface CannedAnswer {
  status: number;
  headers?: Record<string, string | string[]>;
  /** A JSON value is sent as application/json unless the headers say otherwise; a string as it is. */
  body?: unknown;
}

export interface SeenRequest {
  method: string;
  /** Path and query as the upstream received them. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface OwnUpstream {
  url: string;
  /** Every request that reached the upstream, oldest first. */
  seen: SeenRequest[];
  close(): Promise<void>;
}

/** `routes`: "GET /v1/calls?size=2" -> the answer, or a function of the request for answers that echo it. */
export async function startUpstream(
  routes: Record<string, CannedAnswer | ((req: SeenRequest) => CannedAnswer)>,
): Promise<OwnUpstream> {
  const seen: SeenRequest[] = [];
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const request: SeenRequest = {
      method: req.method ?? "GET",
      url: req.url ?? "/",
      headers: req.headers,
      body: Buffer.concat(chunks).toString("utf8"),
    };
    seen.push(request);
    const route = routes[`${request.method} ${request.url}`];
    if (!route) return void res.writeHead(404, { "content-type": "text/plain" }).end("no such route");
    const answer = typeof route === "function" ? route(request) : route;
    const text =
      answer.body === undefined ? "" : typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body);
    const headers = {
      ...(typeof answer.body === "object" && { "content-type": "application/json" }),
      ...answer.headers,
    };
    res.writeHead(answer.status, headers).end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A real mock's answer to `GET path`: its status and parsed JSON body, to break one thing in. */
export async function realAnswer(
  mock: { url: string; apiKey: string },
  path: string,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${mock.url}${path}`, { headers: { "X-API-Key": mock.apiKey } });
  return { status: res.status, body: await res.json() };
}

/** A deep copy, so that one route's break does not leak into another's answer. */
export const copy = <T>(value: T): T => structuredClone(value);

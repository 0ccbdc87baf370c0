/**
 * What the upstream door tests stand the door in front of, and how they call it: a bare node:http (or
 * node:https) server whose answer each test chooses and which keeps what it saw of every request (its
 * headers as received, its body's size and sha256), and a node:http client that returns the answer's
 * bytes as they came (no decompression, no header rewriting), on a fresh connection each time.
 */
import { createHash } from "node:crypto";
import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type Server,
  type ServerResponse,
} from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";

/** A request as the upstream received it. */
export interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** Name/value pairs as they came, repeated headers included. */
  rawHeaders: string[];
  bytes: number;
  sha256: string;
  /** The body, when at most 1 MB (larger ones are only counted and hashed). */
  body: Buffer;
}

/** Answers one request, after its whole body was read; answering nothing leaves the client waiting. */
export type Answer = (req: IncomingMessage, res: ServerResponse, seen: Seen) => void;

export interface RawUpstream {
  url: string;
  port: number;
  /** Every request received, in order. */
  seen: Seen[];
  /** What the next requests are answered; a test may replace it. */
  answer: Answer;
  /** Stops listening and cuts every connection, answered or not. */
  close(): Promise<void>;
}

const KEEP_BODY_BYTES = 1024 * 1024;

export async function startRawUpstream(
  answer: Answer = jsonAnswer(200, {}),
  tls?: { key: string | Buffer; cert: string | Buffer },
): Promise<RawUpstream> {
  const upstream = { seen: [] as Seen[], answer } as RawUpstream;
  const serve = (req: IncomingMessage, res: ServerResponse) => {
    const hash = createHash("sha256");
    const kept: Buffer[] = [];
    let bytes = 0;
    req.on("data", (chunk: Buffer) => {
      hash.update(chunk);
      bytes += chunk.length;
      if (bytes <= KEEP_BODY_BYTES) kept.push(chunk);
    });
    req.on("end", () => {
      const seen: Seen = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        rawHeaders: req.rawHeaders,
        bytes,
        sha256: hash.digest("hex"),
        body: bytes <= KEEP_BODY_BYTES ? Buffer.concat(kept) : Buffer.alloc(0),
      };
      upstream.seen.push(seen);
      upstream.answer(req, res, seen);
    });
  };
  const server: Server = tls ? createHttpsServer(tls, serve) : createServer(serve);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  upstream.port = (server.address() as AddressInfo).port;
  upstream.url = `${tls ? "https" : "http"}://127.0.0.1:${upstream.port}`;
  upstream.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return upstream;
}

/** Answers this status with these bytes (a string, a Buffer, or JSON of an object) and headers. */
export function jsonAnswer(status: number, body: unknown, headers: OutgoingHttpHeaders = {}): Answer {
  const bytes =
    body === undefined
      ? undefined
      : Buffer.isBuffer(body)
        ? body
        : Buffer.from(typeof body === "string" ? body : JSON.stringify(body));
  return (_req, res) => {
    res.writeHead(status, {
      ...(bytes && { "Content-Type": "application/json", "Content-Length": bytes.length }),
      ...headers,
    });
    res.end(bytes);
  };
}

/** A port nothing listens on (bound, then released). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface Sent {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** Milliseconds from the request's start to the answer's last byte. */
  ms: number;
  json(): any;
}

/**
 * One request on a connection of its own, the answer's bytes as they came. `headers` may be a
 * name/value list, for headers Node's client would otherwise merge or refuse. A body given as a list
 * of pieces is sent chunked (no Content-Length), one piece at a time. Without an answer within
 * `timeoutMs` (default 5 s) it rejects, so a door that stalls fails its test at once.
 */
export function send(
  url: string,
  init: {
    method?: string;
    headers?: OutgoingHttpHeaders | string[];
    body?: Buffer | string | Buffer[];
    timeoutMs?: number;
  } = {},
): Promise<Sent> {
  const started = performance.now();
  // A list of headers is sent as it is: Node adds no Host to it.
  const headers = Array.isArray(init.headers) ? ["Host", new URL(url).host, ...init.headers] : init.headers;
  const { method = "GET", timeoutMs = 5_000 } = init;
  return new Promise((resolve, reject) => {
    const fail = (error: Error) => {
      clearTimeout(timer);
      req.destroy();
      reject(error);
    };
    const timer = setTimeout(
      () => fail(new Error(`${method} ${url}: no whole answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const req = httpRequest(url, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("error", fail);
      res.on("end", () => {
        clearTimeout(timer);
        const body = Buffer.concat(chunks);
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body,
          ms: performance.now() - started,
          json: () => JSON.parse(body.toString("utf8")),
        });
      });
    });
    req.on("error", fail);
    if (!Array.isArray(init.body)) return void req.end(init.body);
    for (const piece of init.body) req.write(piece);
    req.end();
  });
}

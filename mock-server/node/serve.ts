/**
 * The Node door: one node:http request handed to the core, its reply written back. The body is read
 * only when the core asks (after routing and the API key), with the stream-level limits here: JSON
 * cut off at its limit, multipart streamed, and a connection whose body was not read to its end
 * closed after the answer with a lingering close. Used by the standalone server and by createApp().
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { ApiError } from "../core/errors.js";
import { trickledPieces } from "../core/exchange.js";
import type { BodyReader, CoreReply, RequestHead } from "../core/exchange.js";
import type { EventReader } from "../core/events.js";
import type { Core } from "../mock/pipeline.js";
import { readJsonText } from "./json-body.js";
import { lingerAfterResponse } from "./linger.js";
import { readMultipart } from "./multipart.js";
import { forwardedBody } from "./forward-body.js";

/** Requests being served, by socket: a request timeout is answered on its own exchange. */
export type InFlight = Map<IncomingMessage["socket"], InFlightRequest>;

export interface InFlightRequest {
  req: IncomingMessage;
  res: ServerResponse;
  head: RequestHead;
  /** Set while the core waits for the body: fails that read (408), so the core answers and journals it. */
  failBody?: (error: ApiError) => void;
}

export interface ServeOptions {
  /** The mount path before req.url (Express's req.baseUrl), for error bodies and the journal. */
  base?: string;
  inFlight?: InFlight;
}

export function headOf(req: IncomingMessage, base?: string): RequestHead {
  const length = req.headers["content-length"];
  return {
    method: req.method ?? "GET",
    url: req.url ?? "/",
    headers: req.headers,
    hasBody: req.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0"),
    base,
  };
}

export async function serveNode(
  core: Core,
  req: IncomingMessage,
  res: ServerResponse,
  options: ServeOptions = {},
): Promise<void> {
  const head = headOf(req, options.base);
  if (req.httpVersion === "1.1" && !req.headers.host) {
    // HTTP/1.1 requires Host (RFC 9112, 3.2): the error body instead of Node's bare status line.
    return writeReply(req, res, core.refuse(head, new ApiError(400, "HTTP/1.1 requests must carry a Host header")));
  }
  const entry: InFlightRequest = { req, res, head };
  options.inFlight?.set(req.socket, entry);
  const readBody: BodyReader = (request) =>
    new Promise((resolve, reject) => {
      entry.failBody = reject;
      if (request.kind === "forward") {
        // Streams on to the upstream as it arrives: the door does not wait for it.
        entry.failBody = undefined;
        return resolve({ kind: "forward", body: forwardedBody(req, request.limit) });
      }
      const read =
        request.kind === "json"
          ? readJsonText(req, request.limit).then((text) => ({ kind: "json" as const, text }))
          : readMultipart(req).then((parts) => ({ kind: "multipart" as const, parts }));
      read.then(resolve, reject).finally(() => (entry.failBody = undefined));
    });
  const reply = await core.handle(head, readBody);
  writeReply(req, res, reply);
}

export function writeReply(req: IncomingMessage, res: ServerResponse, reply: CoreReply): void {
  if (res.headersSent || res.destroyed) return;
  if (reply.reset) {
    // A fault rule's reset: the client sees the connection torn down (TCP RST), no answer at all.
    req.socket.resetAndDestroy();
    return;
  }
  const headers: Record<string, string | number> = reply.headers;
  if (!req.complete) {
    // Answered while the body is still arriving (past a size limit, a bad key on an upload): the
    // connection ends with this answer, so the client stops sending and nothing is drained for it.
    headers.Connection = "close";
    lingerAfterResponse(req, res);
    req.resume();
  }
  if (reply.events) return void pumpEvents(res.writeHead(reply.status, headers), reply.events);
  if (reply.body === undefined) {
    res.writeHead(reply.status, headers).end();
    return;
  }
  // Written as a string in one piece with its headers: no Buffer copy of the body is made.
  headers["Content-Length"] = reply.bytes ?? Buffer.byteLength(reply.body);
  if (reply.trickleMs) return trickle(res.writeHead(reply.status, headers), reply.body, reply.trickleMs);
  res.writeHead(reply.status, headers).end(reply.body);
}

/**
 * GET /__mock/events: each chunk the reader yields, the next asked for only once the socket took the last
 * (`drain`), so a client that does not read leaves its events in the reader, which drops the oldest.
 */
async function pumpEvents(res: ServerResponse, reader: EventReader): Promise<void> {
  let gone: () => void = () => {};
  const closed = new Promise<undefined>((resolve) => (gone = () => resolve(undefined)));
  res.once("close", () => {
    reader.close();
    gone();
  });
  for (;;) {
    const chunk = await reader.next();
    if (chunk === undefined || res.destroyed) break;
    if (!res.write(chunk)) await Promise.race([new Promise((resolve) => res.once("drain", resolve)), closed]);
  }
  if (!res.destroyed) res.end();
}

/** A fault rule's slow: the headers at once, then the body in pieces, the last one after `ms`. */
function trickle(res: ServerResponse, body: string | Uint8Array, ms: number): void {
  const pieces = trickledPieces(body);
  let sent = 0;
  const timer = setInterval(() => {
    if (res.destroyed) return clearInterval(timer);
    res.write(pieces[sent++]);
    if (sent === pieces.length) {
      clearInterval(timer);
      res.end();
    }
  }, ms / pieces.length);
}

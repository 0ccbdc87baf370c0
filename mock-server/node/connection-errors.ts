/**
 * Failures Node meets below Express: a request not received in full within the request timeout (a
 * slow client), headers too large, malformed HTTP, an unknown Expect. Node's defaults answer these
 * with a bare status line; here they get the reference's error body (2.2) like every other failure,
 * and the connection is closed so a stalled client frees its slot.
 * HTTP/1.1 without Host is let through by the server and refused by the door (serve.ts), for the same reason.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Clock } from "../core/clock.js";
import { ApiError, errorBody, STATUS_TEXT } from "../core/errors.js";
import type { Core } from "../mock/pipeline.js";
import { headOf, writeReply, type InFlight } from "./serve.js";

interface ClientError extends Error {
  code?: string;
  rawPacket?: Buffer;
}

/** A socket that will not close by itself (a client that keeps sending) is destroyed after this. */
const CLOSE_GRACE_MS = 2_000;

function statusOf(error: ClientError): number {
  switch (error.code) {
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return 408;
    case "HPE_HEADER_OVERFLOW":
      return 431;
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return 413;
    default:
      return 400;
  }
}

function messageOf(error: ClientError, status: number, requestTimeoutMs: number): string {
  if (status === 408) return `The request was not received in full within ${requestTimeoutMs} ms`;
  if (status === 431) return "Request headers are too large";
  if (status === 413) return "Chunk extensions are too large";
  return `Malformed HTTP request (${error.code ?? "parse error"})`;
}

/** The path of the request line when the bytes seen so far hold one; "*" (the server as a whole) otherwise. */
function pathOf(raw: Buffer | undefined): string {
  const line = /^[A-Za-z]+ ([^ \r\n?#]+)/.exec(raw?.subarray(0, 2048).toString("latin1") ?? "");
  return line?.[1].startsWith("/") ? line[1] : "*";
}

function closeSoon(socket: Socket): void {
  setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
}

export function answerClientError(core: Core, clock: Clock, inFlight: InFlight, requestTimeoutMs: number) {
  return function onClientError(error: ClientError, socket: Socket): void {
    if (error.code === "ECONNRESET" || !socket.writable) {
      socket.destroy();
      return;
    }
    const status = statusOf(error);
    const message = messageOf(error, status, requestTimeoutMs);
    const current = inFlight.get(socket);
    if (current) {
      // The core has the request (its body was still arriving): the core answers it and journals it,
      // through the body read it waits on, or at once when it is not reading.
      if (current.res.headersSent) return void socket.destroy();
      const apiError = new ApiError(status, message);
      if (current.failBody) current.failBody(apiError);
      else writeReply(current.req, current.res, core.refuse(current.head, apiError));
      closeSoon(socket);
      return;
    }
    const body = JSON.stringify(errorBody(clock, pathOf(error.rawPacket), status, message));
    const head = `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`;
    // Not destroyed at once: a client still sending would get a reset that can swallow this answer.
    socket.end(head + body);
    closeSoon(socket);
  };
}

/** An Expect other than 100-continue: 417 with the error body (Node would send a bare 417). */
export function answerExpectation(core: Core) {
  return function onCheckExpectation(req: IncomingMessage, res: ServerResponse): void {
    const reply = core.refuse(headOf(req), new ApiError(417, `Expect: ${req.headers.expect} is not supported`));
    reply.headers.Connection = "close";
    writeReply(req, res, reply);
  };
}

/**
 * Failures before Express sees a request: Node's parser refuses a request line or headers over 16 KB
 * (431), broken framing (400), a request not received in time (408); and HTTP/1.1 without Host, which
 * Node would answer itself. Node answers all of these with a bare status line; here they get the
 * reference's 2.2 body like every other failure.
 */
import type { RequestHandler } from "express";
import type { Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Clock } from "../clock.js";
import { ApiError, STATUS_TEXT, errorBodyAt } from "./errors.js";

const STATUS_OF_CODE: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, "Request line and headers exceed the 16 KB limit"],
  ERR_HTTP_REQUEST_TIMEOUT: [408, "The request was not received in time"],
};

type ParsingSocket = Socket & { _httpMessage?: ServerResponse };

/**
 * The request path, when the packet Node failed on starts the request and holds the whole path.
 * Otherwise (the request line arrived in an earlier packet, or is itself too long) it is unknown: "".
 */
function pathOf(packet: Buffer | undefined): string {
  const line = /^[A-Za-z]+ (\/[^ ?\r\n]*)[ ?]/.exec(packet?.subarray(0, 20_000).toString("latin1") ?? "");
  return line ? line[1] : "";
}

export function answerClientErrors(server: Server, clock: Clock): void {
  server.on("clientError", (err: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket) => {
    const inFlight = (socket as ParsingSocket)._httpMessage;
    if (err.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const [status, message] = STATUS_OF_CODE[err.code ?? ""] ?? [400, `Malformed HTTP request (${err.code ?? "parse error"})`];
    const body = JSON.stringify(errorBodyAt(clock, pathOf(err.rawPacket), status, message));
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}

/** HTTP/1.1 requires Host (RFC 9112, 3.2); the server lets such requests through so this answers them. */
export function requireHost(): RequestHandler {
  return function checkHost(req, _res, next) {
    if (req.httpVersion === "1.1" && !req.headers.host) return next(new ApiError(400, "HTTP/1.1 requests must carry a Host header"));
    next();
  };
}

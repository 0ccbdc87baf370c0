/**
 * Lingering close. Closing a connection the client is still writing to (an upload answered 413 at
 * the limit) makes the kernel answer the client's next bytes with a reset, which can destroy our
 * response in the client's buffers before it reads it. So when such a response ends, our side is
 * ended and what the client still sends is read and dropped until it closes, for at most LINGER_MS.
 */
import type { IncomingMessage, ServerResponse } from "node:http";

const LINGER_MS = 2_000;

/** Call before sending a `Connection: close` response to a request whose body is not all read. */
export function lingerAfterResponse(req: IncomingMessage, res: ServerResponse): void {
  const socket = res.socket;
  if (!socket || req.complete) return;
  // Node ends a `Connection: close` response's socket with destroySoon(): end, then destroy at once.
  socket.destroySoon = function lingeringClose() {
    if (socket.writable) socket.end();
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once("close", () => clearTimeout(timer));
  };
}

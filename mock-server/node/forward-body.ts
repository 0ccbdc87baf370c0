/**
 * A request body on its way to the upstream (node:http doors): the bytes stream on as the client sends
 * them, never held whole (a 25 MB upload costs a few chunks of memory), while a copy is read beside
 * them for the drift checks and for the mock should a `fallback` operation need it: JSON text up to a
 * limit (inflated), or a form's parts with files reduced to their first bytes (busboy, as the mock reads them).
 */
import type { IncomingMessage } from "node:http";
import { PassThrough } from "node:stream";
import type { ForwardedBody, FormPart } from "../core/exchange.js";
import { mediaType } from "../core/body.js";
import { readJsonText } from "./json-body.js";
import { readMultipart } from "./multipart.js";

export function forwardedBody(req: IncomingMessage, limit: number): ForwardedBody {
  const stream = new PassThrough();
  // A copy stream that looks like the request to the readers (they read its headers and events).
  const copyStream = Object.assign(new PassThrough(), { headers: req.headers }) as unknown as IncomingMessage;
  req.pipe(stream);
  req.pipe(copyStream as unknown as PassThrough);
  req.once("aborted", () => stream.destroy(new Error("the client went away before sending all of its body")));
  const multipart = mediaType(req.headers["content-type"]).type === "multipart/form-data";
  const copy: ForwardedBody["copy"] = multipart
    ? readMultipart(copyStream).then(
        (parts) => ({ kind: "multipart" as const, parts }),
        // The mock's own upload rules refused the form: the upstream judges it; the copy holds no parts.
        () => drained({ kind: "multipart" as const, parts: [] as FormPart[] }),
      )
    : readJsonText(copyStream, limit).then(
        (text) => ({ kind: "json" as const, text }),
        // Past the limit (or not readable): unchecked, and still forwarded whole.
        () => drained({ kind: "json" as const, text: undefined }),
      );
  /** A copy given up on is still read to its end, or its full buffer would hold the forwarded stream back. */
  const drained = <T>(value: T): T => {
    (copyStream as unknown as PassThrough).resume();
    return value;
  };
  return { stream, copy };
}

/**
 * A JSON body read from a Node request with its limit enforced as the bytes arrive (413 at the limit,
 * not after the last byte of a 100 MB upload), inflated first when it is compressed, so a small gzip
 * bomb is cut off at the limit of what it inflates to.
 */
import type { IncomingMessage } from "node:http";
import type { Readable, Transform } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { bodyTooLarge, contentCoding, malformedCompression } from "../core/body.js";
import { ApiError } from "../core/errors.js";

const INFLATERS = { gzip: createGunzip, deflate: createInflate, br: createBrotliDecompress } as const;

/** The inflater for the body's Content-Encoding; undefined for none. */
function decoder(req: IncomingMessage): Transform | undefined {
  const coding = contentCoding(req.headers["content-encoding"]);
  return coding === "identity" ? undefined : INFLATERS[coding]();
}

export function readJsonText(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    if (Number(req.headers["content-length"]) > limit) return reject(bodyTooLarge(limit));
    let inflater: Transform | undefined;
    try {
      inflater = decoder(req);
    } catch (error) {
      return reject(error);
    }
    const stream: Readable = inflater ? req.pipe(inflater) : req;
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    const stop = (error: ApiError) => {
      if (settled) return;
      settled = true;
      stream.removeAllListeners("data");
      if (inflater) {
        req.unpipe(inflater);
        inflater.destroy();
      }
      // What the client still sends is read and dropped (the door closes the connection after answering).
      req.resume();
      reject(error);
    };
    stream.on("data", (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) return stop(bodyTooLarge(limit));
      chunks.push(chunk);
    });
    stream.on("end", () => {
      if (settled) return;
      settled = true;
      resolve(Buffer.concat(chunks, received).toString("utf8"));
    });
    stream.on("error", () => stop(malformedCompression()));
    req.on("aborted", () => stop(new ApiError(400, "Request aborted by the client")));
  });
}

/**
 * Requests no HTTP client would send, as raw bytes on a socket: broken request lines and headers,
 * conflicting framing, bad chunk sizes, other protocols. The mock must still answer with the 2.2 body.
 */
import fc from "fast-check";
import type { FuzzCase } from "./case.js";

const KEY = "X-API-Key: $KEY\r\n";
const CLOSE = "Connection: close\r\n";

const RAW: [string, string][] = [
  ["a NUL byte in a header value", `GET /v1/agents HTTP/1.1\r\nHost: x\r\n${KEY}X-Bad: a\u0000b\r\n${CLOSE}\r\n`],
  ["a space in a header name", `GET /v1/agents HTTP/1.1\r\nHost: x\r\n${KEY}Bad Header: x\r\n${CLOSE}\r\n`],
  ["a header line without a colon", `GET /v1/agents HTTP/1.1\r\nHost: x\r\n${KEY}NoColonHere\r\n${CLOSE}\r\n`],
  ["an obsolete folded header", `GET /v1/agents HTTP/1.1\r\nHost: x\r\n${KEY}X-Fold: a\r\n b\r\n${CLOSE}\r\n`],
  ["HTTP/9.9", `GET /v1/agents HTTP/9.9\r\nHost: x\r\n${KEY}${CLOSE}\r\n`],
  ["an HTTP/2 preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"],
  ["a request line with no path", "GET\r\n\r\n"],
  ["a TLS client hello", "\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u0001\u00fc\u0003\u0003"],
  ["a space inside the path", `GET /v1/a b HTTP/1.1\r\nHost: x\r\n${KEY}${CLOSE}\r\n`],
  ["a control character in the path", `GET /v1/calls/\u0001 HTTP/1.1\r\nHost: x\r\n${KEY}${CLOSE}\r\n`],
  ["a non-ASCII byte in the path", `GET /v1/calls/\u00e9 HTTP/1.1\r\nHost: x\r\n${KEY}${CLOSE}\r\n`],
  [
    "both Content-Length and Transfer-Encoding",
    `POST /v1/integrations HTTP/1.1\r\nHost: x\r\n${KEY}Content-Type: application/json\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n${CLOSE}\r\n0\r\n\r\n`,
  ],
  [
    "a bad chunk size",
    `POST /v1/integrations HTTP/1.1\r\nHost: x\r\n${KEY}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n${CLOSE}\r\nzz\r\n{}\r\n0\r\n\r\n`,
  ],
  [
    "a negative Content-Length",
    `POST /v1/integrations HTTP/1.1\r\nHost: x\r\n${KEY}Content-Type: application/json\r\nContent-Length: -1\r\n${CLOSE}\r\n{}`,
  ],
  [
    "a Content-Length that is not a number",
    `POST /v1/integrations HTTP/1.1\r\nHost: x\r\n${KEY}Content-Type: application/json\r\nContent-Length: abc\r\n${CLOSE}\r\n{}`,
  ],
  [
    "two different Content-Lengths",
    `POST /v1/integrations HTTP/1.1\r\nHost: x\r\n${KEY}Content-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n${CLOSE}\r\n{} `,
  ],
  [
    "an unknown Transfer-Encoding",
    `POST /v1/integrations HTTP/1.1\r\nHost: x\r\n${KEY}Content-Type: application/json\r\nTransfer-Encoding: bogus\r\n${CLOSE}\r\n{}`,
  ],
  ["bare LF line endings", `GET /v1/agents HTTP/1.1\nHost: x\nX-API-Key: $KEY\nConnection: close\n\n`],
  ["HTTP/1.0 without Host", `GET /v1/agents HTTP/1.0\r\n${KEY}\r\n`],
  ["HTTP/1.1 without Host", `GET /v1/agents HTTP/1.1\r\n${KEY}${CLOSE}\r\n`],
  ["an absolute URI", `GET http://127.0.0.1/v1/agents HTTP/1.1\r\nHost: x\r\n${KEY}${CLOSE}\r\n`],
  ["an asterisk target", `OPTIONS * HTTP/1.1\r\nHost: x\r\n${CLOSE}\r\n`],
  ["a lower-case method", `get /v1/agents HTTP/1.1\r\nHost: x\r\n${KEY}${CLOSE}\r\n`],
  ["an unknown method", `BREW /v1/agents HTTP/1.1\r\nHost: x\r\n${KEY}${CLOSE}\r\n`],
  [
    "a chunked body with a trailer",
    `POST /v1/integrations HTTP/1.1\r\nHost: x\r\n${KEY}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n${CLOSE}\r\nd\r\n{"name":"ok"}\r\n0\r\nX-Trailer: t\r\n\r\n`,
  ],
];

export const rawCase: fc.Arbitrary<FuzzCase> = fc.oneof(
  fc.constantFrom(...RAW).map(([why, raw]) => rawCaseOf(why, raw)),
  fc
    .integer({ min: 17_000, max: 30_000 })
    .map((n) =>
      rawCaseOf(
        `a request line of ${n} bytes`,
        `GET /v1/calls/${"a".repeat(n)} HTTP/1.1\r\nHost: x\r\n${KEY}${CLOSE}\r\n`,
      ),
    ),
  fc
    .integer({ min: 17_000, max: 30_000 })
    .map((n) =>
      rawCaseOf(
        `a header of ${n} bytes`,
        `GET /v1/agents HTTP/1.1\r\nHost: x\r\n${KEY}X-Pad: ${"p".repeat(n)}\r\n${CLOSE}\r\n`,
      ),
    ),
  // Only CR and LF would be the empty lines a server skips before a request line: it then rightly waits.
  fc
    .uint8Array({ minLength: 1, maxLength: 120 })
    .filter((bytes) => bytes.some((b) => b !== 0x0d && b !== 0x0a))
    .map((bytes) => rawCaseOf("random bytes", `${Buffer.from(bytes).toString("latin1")}\r\n\r\n`)),
);

function rawCaseOf(why: string, raw: string): FuzzCase {
  return {
    operationId: null,
    kind: "raw",
    expect: "any",
    why,
    wire: { method: "", target: "", headers: [], key: null, raw },
  };
}

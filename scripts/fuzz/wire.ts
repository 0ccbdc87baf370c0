/**
 * Requests as they go on the wire, so the fuzzer can send what fetch never would: duplicated query
 * parameters and headers, any method token, a path exactly as written, a body of any bytes with any
 * (or no) Content-Type, chunked or not; and, for the raw cases, arbitrary bytes on a socket.
 */
import { Agent, request } from "node:http";
import { connect } from "node:net";

export interface WireRequest {
  method: string;
  /** Path and query exactly as on the request line (already percent-encoded). */
  target: string;
  /** In order; a name may repeat. The API key is added by the sender unless `key` says otherwise. */
  headers: [string, string][];
  body?: string | Uint8Array;
  /** Send the body with Transfer-Encoding: chunked instead of Content-Length. */
  chunked?: boolean;
  /** "valid": the workspace's key; "$upper" / "$padded": it upper-cased / with spaces around; null: none; else that key. */
  key: "valid" | null | string;
  /** Raw bytes for the whole request (`$KEY` replaced by the valid key); the fields above only describe it. */
  raw?: string;
}

export interface WireResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
}

const agent = new Agent({ keepAlive: true, maxSockets: 4 });

function withKey(req: WireRequest, apiKey: string): [string, string][] {
  const key =
    req.key === "valid"
      ? apiKey
      : req.key === "$upper"
        ? apiKey.toUpperCase()
        : req.key === "$padded"
          ? ` ${apiKey} `
          : req.key;
  return key === null ? [...req.headers] : [["X-API-Key", key], ...req.headers];
}

export function sendWire(baseUrl: string, apiKey: string, req: WireRequest, timeoutMs = 15_000): Promise<WireResponse> {
  return req.raw !== undefined
    ? sendRaw(baseUrl, req.raw.replaceAll("$KEY", apiKey), timeoutMs)
    : sendHttp(baseUrl, apiKey, req, timeoutMs);
}

function sendHttp(baseUrl: string, apiKey: string, req: WireRequest, timeoutMs: number): Promise<WireResponse> {
  const { hostname, port } = new URL(baseUrl);
  // With headers given as a list Node adds no Host: HTTP/1.1 needs one (the raw cases go without).
  const headers = withKey(req, apiKey);
  if (!headers.some(([name]) => name.toLowerCase() === "host")) headers.unshift(["Host", `${hostname}:${port}`]);
  const body = req.body === undefined ? undefined : Buffer.from(req.body as string);
  if (body && !req.chunked) headers.push(["Content-Length", String(body.length)]);
  return new Promise((resolve, reject) => {
    const flat: string[] = headers.flat();
    const client = request(
      { host: hostname, port, method: req.method, path: req.target, headers: flat, agent, timeout: timeoutMs },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: flatten(res.headers),
            text: Buffer.concat(chunks).toString("utf8"),
          }),
        );
        res.on("error", reject);
      },
    );
    client.on("timeout", () => client.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    client.on("error", reject);
    if (body && req.chunked) {
      // Several chunks, so the server really sees a chunked stream.
      for (let i = 0; i < body.length; i += 4096) client.write(body.subarray(i, i + 4096));
    } else if (body) client.write(body);
    client.end();
  });
}

function flatten(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : v!]),
  );
}

/** Writes the bytes, reads until the server closes (or the first complete response), parses it. */
function sendRaw(baseUrl: string, raw: string, timeoutMs: number): Promise<WireResponse> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = () => {
      if (settled) return;
      const parsed = parseResponse(Buffer.concat(chunks));
      if (!parsed) return;
      settled = true;
      socket.destroy();
      resolve(parsed);
    };
    socket.setTimeout(timeoutMs, () => {
      settled = true;
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    });
    socket.on("data", (c: Buffer) => {
      chunks.push(c);
      finish();
    });
    socket.on("end", () => {
      finish();
      if (!settled) {
        settled = true;
        reject(new Error(`connection closed without a complete response (${Buffer.concat(chunks).length} bytes)`));
      }
    });
    socket.on("error", (e) => {
      if (!settled) finish();
      if (!settled) {
        settled = true;
        reject(e);
      }
    });
    socket.write(Buffer.from(raw, "latin1"));
  });
}

/** The first HTTP/1.1 response in `bytes`, once its headers and Content-Length body have arrived. */
export function parseResponse(bytes: Buffer): WireResponse | undefined {
  const end = bytes.indexOf("\r\n\r\n");
  if (end === -1) return undefined;
  const [statusLine, ...lines] = bytes.subarray(0, end).toString("latin1").split("\r\n");
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers["content-length"] ?? 0);
  const body = bytes.subarray(end + 4);
  if (body.length < length) return undefined;
  return { status, headers, text: body.subarray(0, length).toString("utf8") };
}

export function closeWire(): void {
  agent.destroy();
}

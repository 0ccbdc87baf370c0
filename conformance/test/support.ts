/** Test helpers: the kit's mock on an ephemeral port, and proxies in front of it that record or corrupt. */
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

const serverUrl = new URL("../../mock-server/server.ts", import.meta.url);
export const hasMock = existsSync(serverUrl);
export const NO_MOCK = "mock-server/server.ts does not exist yet";

export interface Running {
  url: string;
  apiKey: string;
  close(): Promise<void>;
}

/** `clock: "real"` for a mock posing as a foreign deployment: its Date header then tells its time. */
export async function startKitMock(options: { clock?: "real" | "virtual" } = {}): Promise<Running> {
  // Imported by a computed path, so this file typechecks before the mock exists.
  const path = serverUrl.href;
  const { startMock } = await import(path);
  return startMock({ port: 0, host: "127.0.0.1", ...options });
}

export type Rewrite = (
  req: { method: string; path: string },
  res: { status: number; headers: Headers; body: Buffer },
) => { status: number; headers: Record<string, string>; body: Buffer | string } | undefined;

/** A pass-through proxy to `upstream`; `rewrite` may replace any response; `seen` records every request. */
export async function startProxy(
  upstream: string,
  rewrite: Rewrite = () => undefined,
): Promise<Running & { seen: { method: string; path: string; key?: string }[] }> {
  const seen: { method: string; path: string; key?: string }[] = [];
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const method = req.method ?? "GET";
    const url = new URL(req.url ?? "/", upstream);
    seen.push({ method, path: url.pathname, key: req.headers["x-api-key"] as string | undefined });
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers))
      if (v !== undefined && k !== "host" && k !== "content-length") headers.set(k, Array.isArray(v) ? v.join(",") : v);
    const upstreamRes = await fetch(url, {
      method,
      headers,
      body: method === "GET" || method === "HEAD" ? undefined : body,
    });
    const upstreamBody = Buffer.from(await upstreamRes.arrayBuffer());
    const replaced = rewrite(
      { method, path: url.pathname },
      { status: upstreamRes.status, headers: upstreamRes.headers, body: upstreamBody },
    );
    if (replaced) {
      res.writeHead(replaced.status, replaced.headers).end(replaced.body);
      return;
    }
    const out: Record<string, string> = {};
    upstreamRes.headers.forEach((v, k) => {
      if (k !== "content-length" && k !== "content-encoding" && k !== "transfer-encoding") out[k] = v;
    });
    res.writeHead(upstreamRes.status, out).end(upstreamBody);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    apiKey: "",
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Rewrites a JSON response body; other responses pass. */
export function json(mutate: (body: any) => void): (res: { status: number; headers: Headers; body: Buffer }) => {
  status: number;
  headers: Record<string, string>;
  body: string;
} {
  return (res) => {
    const body = JSON.parse(res.body.toString("utf8"));
    mutate(body);
    return { status: res.status, headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
  };
}

export const silentIo = { out: () => {}, err: () => {} };

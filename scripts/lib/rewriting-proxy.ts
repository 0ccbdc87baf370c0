/**
 * A "staging" for the demos: a plain proxy in front of a mock that rewrites some JSON answers, as a real
 * deployment that drifts from the spec would answer them. Binds 127.0.0.1 on a free port.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type Json = Record<string, any>;

/** What the proxy answers instead of the upstream's JSON answer to `path` (the request's, without query). */
export type Rewrite = (path: string, status: number, body: Json) => { status: number; body: Json };

export async function startRewritingProxy(
  upstream: string,
  rewrite: Rewrite,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers))
      if (v !== undefined && !["host", "connection", "content-length"].includes(k)) headers[k] = [v].flat().join(", ");
    const answer = await fetch(`${upstream}${req.url}`, {
      method: req.method,
      headers,
      body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
    });
    const text = await answer.text();
    const path = new URL(req.url ?? "/", "http://staging").pathname;
    let status = answer.status;
    let body = text;
    if (text && answer.headers.get("content-type")?.includes("json")) {
      const rewritten = rewrite(path, answer.status, JSON.parse(text));
      status = rewritten.status;
      body = JSON.stringify(rewritten.body);
    }
    res.writeHead(status, { "content-type": answer.headers.get("content-type") ?? "text/plain" }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

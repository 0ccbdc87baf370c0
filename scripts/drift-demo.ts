/**
 * What drift looks like, from a real run: a "staging" that drifts from the spec in four ways a real
 * deployment plausibly would (the kit's mock behind a gateway that rewrites some answers), the
 * upstream door in front of it, an app's requests through the door (one of them off the contract
 * itself), then `agent-platform-mock drift` on the door. Everything binds 127.0.0.1 on free ports.
 *
 *   npx tsx scripts/drift-demo.ts [--html FILE] [--json FILE]
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { driftMain } from "../conformance/drift/command.js";
import { startMock } from "../mock-server/server.js";

type Json = Record<string, any>;

/** The four drifts: each rewrites one operation's answer as a deployment might get it wrong. */
function drift(path: string, status: number, body: Json): Json {
  // E14's quirk (2.1): the phone number list names its total totalCounts; this deployment "fixed" it.
  if (path.startsWith("/v1/phone-number") && "totalCounts" in body) {
    const { totalCounts, ...rest } = body;
    return { ...rest, totalCount: totalCounts };
  }
  // A status the reference does not have.
  if (/^\/v1\/calls\/[^/]+$/.test(path) && status === 200) return { ...body, status: "on_hold" };
  // The last page says there is a next one.
  if (path === "/v1/calls" && status === 200 && body.hasNext === false) return { ...body, hasNext: true };
  // An error body that names the path without /v1.
  if (status === 404) return { ...body, path: String(body.path).replace(/^\/v1/, "") };
  return body;
}

async function startStaging(upstream: string): Promise<{ url: string; close(): Promise<void> }> {
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
    const body =
      text && answer.headers.get("content-type")?.includes("json")
        ? JSON.stringify(drift(path, answer.status, JSON.parse(text)))
        : text;
    res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "text/plain" }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { html: { type: "string" }, json: { type: "string" } } });
  const real = await startMock({ log: () => {} });
  const staging = await startStaging(real.url);
  const door = await startMock({ upstream: staging.url, log: (line) => console.log(`[door] ${line}`) });
  const headers = { "X-API-Key": real.apiKey };
  const get = (path: string) => fetch(`${door.url}${path}`, { headers }).then((r) => r.json() as Promise<Json>);
  try {
    const first = await get("/v1/calls?size=5");
    await get(`/v1/calls?page=${first.totalPages - 1}&size=5`);
    await get(`/v1/calls/${first.data[0].callId}`);
    await get("/v1/calls/00000000-0000-4000-8000-000000000000");
    await get("/v1/phone-number");
    await get("/v1/agents?size=0");
    console.log(`\n$ agent-platform-mock drift --url ${door.url} --include-requests\n`);
    return await driftMain([
      "--url",
      door.url,
      "--include-requests",
      ...(values.html ? ["--html", values.html] : []),
      ...(values.json ? ["--json", values.json] : []),
    ]);
  } finally {
    await door.close();
    await staging.close();
    await real.close();
  }
}

main().then(
  (code) => process.exit(code === 1 ? 0 : code),
  (error) => {
    console.error(error);
    process.exit(2);
  },
);

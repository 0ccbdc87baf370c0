/**
 * What drift looks like, from a real run: a "staging" that drifts from the spec in four ways a real
 * deployment plausibly would (the kit's mock behind a gateway that rewrites some answers), the
 * upstream door in front of it, an app's requests through the door (one of them off the contract
 * itself), then `agent-platform-mock drift` on the door. Everything binds 127.0.0.1 on free ports.
 *
 *   npx tsx scripts/drift-demo.ts [--html FILE] [--json FILE]
 */
import { parseArgs } from "node:util";
import { driftMain } from "../conformance/drift/command.js";
import { startMock } from "../mock-server/server.js";
import { startRewritingProxy, type Json } from "./lib/rewriting-proxy.js";

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

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { html: { type: "string" }, json: { type: "string" } } });
  const real = await startMock({ log: () => {} });
  const staging = await startRewritingProxy(real.url, (path, status, body) => ({
    status,
    body: drift(path, status, body),
  }));
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

/**
 * Part 2's baseline, run as a forked child with an IPC channel (msw.ts starts it beside msw-door.ts):
 *   node --import tsx scripts/bench/msw-bare.ts
 * Bare msw handlers, one `http.get` per request, each answering the door's own status, headers and
 * body bytes for it (captured from the door first, sent as the first message { answers }) as
 * constants, behind setupServer in Node: what msw itself costs, the ceiling for any MSW door, as
 * bare-server.ts's node:http is for the node:http door. Then driven as the door is (msw-load.ts).
 */
import { http } from "msw";
import { setupServer } from "msw/node";
import type { BenchRequest } from "./load.js";
import { MSW_BASE_URL, type MswAnswer } from "./msw.js";
import { serveLoad } from "./msw-load.js";

function handlerFor(answer: MswAnswer) {
  const body = Buffer.from(answer.bodyBase64, "base64");
  const init: ResponseInit = { status: answer.status, headers: answer.headers };
  const q = answer.request.path.indexOf("?");
  const path = q === -1 ? answer.request.path : answer.request.path.slice(0, q);
  const method = answer.request.method.toLowerCase() as "get" | "post" | "patch";
  return http[method](MSW_BASE_URL + path, () => new Response(body, init));
}

process.once("message", ({ answers }: { answers: MswAnswer[] }) => {
  const server = setupServer(...answers.map(handlerFor));
  server.listen({ onUnhandledRequest: "error" });
  const scenarios = new Map<string, BenchRequest>(answers.map((a) => [a.scenario, a.request]));
  serveLoad(MSW_BASE_URL, scenarios, () => {
    server.close();
    process.exit(0);
  });
});

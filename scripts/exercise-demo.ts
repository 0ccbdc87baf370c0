/**
 * "What did we exercise?" from a real run (mock-server/docs/what-did-we-exercise.md shows its output):
 * an app's session against the mock, then the four answers the kit gives about it:
 *   1. coverage: `agent-platform-mock coverage` on the app's workspace;
 *   2. the session as HAR (GET /__mock/requests.har), written to the output folder;
 *   3. blast radius: `npm run spec:diff` of a changed spec against that HAR;
 *   4. parity: `agent-platform-conformance parity` of the mock against a "staging" that is the kit's mock
 *      behind a gateway differing in three behaviours.
 * Everything binds 127.0.0.1 on free ports.
 *
 *   npx tsx scripts/exercise-demo.ts [--out DIR] [--skip-parity]
 */
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs, promisify } from "node:util";
import { coverageMain } from "../conformance/coverage/command.js";
import { parityMain } from "../conformance/parity/command.js";
import { startMock } from "../mock-server/server.js";
import { startRewritingProxy, type Json } from "./lib/rewriting-proxy.js";

const ROOT = join(import.meta.dirname, "..");

/** The app's session: what a call list and a call page of a UI ask, one call that does not exist, a chat. */
async function appSession(url: string, apiKey: string): Promise<void> {
  const get = async (path: string) => {
    const response = await fetch(url + path, { headers: { "X-API-Key": apiKey } });
    return (await response.json()) as Json;
  };
  await get("/v1/agents");
  const calls = await get("/v1/calls?size=5");
  await get(`/v1/calls/${calls.data[0].callId}`);
  await get("/v1/calls/00000000-0000-4000-8000-000000000000");
  await get("/v1/calls?status=error&size=5");
  const agent = (await get("/v1/agents?size=1")).data[0];
  await fetch(`${url}/v1/chat`, {
    method: "POST",
    headers: { "X-API-Key": apiKey, "Content-Type": "application/json" },
    body: JSON.stringify({ agentId: agent.agentId, conversation: "Can I move my appointment to Friday?" }),
  });
}

/**
 * The spec change a team proposes: calls lose `recordingUrl` (breaks what the app read), a chat needs
 * a `channel` (breaks what the app sent), and phone numbers can no longer be updated (the app never did).
 */
function changedSpec(base: Json): Json {
  const head = structuredClone(base);
  delete head.components.schemas.Call.properties.recordingUrl;
  head.components.schemas.Call.required = head.components.schemas.Call.required.filter(
    (f: string) => f !== "recordingUrl",
  );
  const chat = head.components.schemas.ChatCreate;
  chat.properties.channel = { type: "string", enum: ["web", "sms"] };
  chat.required = [...(chat.required ?? []), "channel"];
  delete head.paths["/v1/phone-number/{phoneNumber}"].patch;
  return head;
}

/** The "staging" gateway: 422 for a bad size, calls listed oldest first, `path` dropped from its 404s. */
function stagingGateway(path: string, status: number, body: Json): { status: number; body: Json } {
  if (!path.startsWith("/v1")) return { status, body };
  if (status === 400 && /size/.test(String(body.message))) return { status: 422, body: { ...body, status: 422 } };
  if (status === 404) {
    const { path: _dropped, ...rest } = body;
    return { status, body: rest };
  }
  if (path === "/v1/calls" && status === 200) return { status, body: { ...body, data: [...body.data].reverse() } };
  return { status, body };
}

const print = (title: string, text: string) => console.log(`\n=== ${title}\n${text.trimEnd()}`);

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: { out: { type: "string", default: "exercise-demo" }, "skip-parity": { type: "boolean" } },
  });
  const out = values.out!;
  mkdirSync(out, { recursive: true });
  const mock = await startMock({ log: () => undefined });
  const staging = values["skip-parity"] ? undefined : await startMock({ seed: 7, log: () => undefined });
  const gateway = staging && (await startRewritingProxy(staging.url, stagingGateway));
  try {
    const created = await fetch(`${mock.url}/__mock/workspaces`, { method: "POST" });
    const app = (await created.json()) as { workspaceId: string; apiKey: string };
    await appSession(mock.url, app.apiKey);

    const lines: string[] = [];
    const io = { out: (t: string) => void lines.push(t), err: (t: string) => void lines.push(t) };
    const coverageCode = await coverageMain(
      ["--url", mock.url, "--workspace", app.workspaceId, "--fail-under", "80", "--json", join(out, "coverage.json")],
      {},
      io,
    );
    print(
      `agent-platform-mock coverage --url ${mock.url} --workspace <app> --fail-under 80 (exit ${coverageCode})`,
      lines.join("\n"),
    );

    const har = await (await fetch(`${mock.url}/__mock/requests.har?workspaceId=${app.workspaceId}`)).text();
    const harFile = join(out, "app.har");
    writeFileSync(harFile, har);
    const entries = (JSON.parse(har) as Json).log.entries as Json[];
    print(
      `GET /__mock/requests.har?workspaceId=<app> -> ${harFile}`,
      entries
        .map(
          (e) =>
            `${e.request.method} ${new URL(e.request.url).pathname}${new URL(e.request.url).search} -> ${e.response.status} (${e._operationId})`,
        )
        .join("\n"),
    );

    const base = join(ROOT, "generated/openapi.json");
    const headFile = join(out, "proposed-openapi.json");
    writeFileSync(headFile, JSON.stringify(changedSpec(JSON.parse(readFileSync(base, "utf8")))));
    const diff = await promisify(execFile)(
      process.execPath,
      [
        "--import",
        "tsx",
        join(ROOT, "scripts/spec-diff.ts"),
        "--base",
        base,
        "--head",
        headFile,
        "--traffic",
        harFile,
        "--json",
        join(out, "blast-radius.json"),
      ],
      { cwd: ROOT },
    ).then(
      (r) => ({ code: 0, text: r.stdout }),
      (e: { code?: number; stdout?: string; stderr?: string }) => ({
        code: e.code ?? 2,
        text: `${e.stdout ?? ""}${e.stderr ?? ""}`,
      }),
    );
    print(
      `npm run spec:diff -- --base generated/openapi.json --head proposed-openapi.json --traffic app.har (exit ${diff.code})`,
      diff.text,
    );

    if (staging && gateway) {
      const parityLines: string[] = [];
      const { code } = await parityMain(
        [
          "--base-url",
          mock.url,
          "--api-key",
          mock.apiKey,
          "--against",
          gateway.url,
          "--against-api-key",
          staging.apiKey,
          "--json",
          join(out, "parity.json"),
          "--html",
          join(out, "parity.html"),
          "--quiet",
        ],
        {},
        { out: (t) => void parityLines.push(t), err: (t) => void parityLines.push(t) },
      );
      print(
        `agent-platform-conformance parity --base-url <mock> --against <staging> (exit ${code})`,
        parityLines.join("\n"),
      );
    }
    return 0;
  } finally {
    await gateway?.close();
    await staging?.close();
    await mock.close();
  }
}

process.exitCode = await main();

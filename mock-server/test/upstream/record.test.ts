/**
 * `--record`, on the real process: a door (`--upstream URL --record --state-file F`) keeps every record
 * the upstream's answers hold in its workspace `recorded`, by id, the last one seen winning; SIGTERM saves
 * it; a plain mock started on the same state file then serves those records offline, with the workspace's
 * key (`recorded-api-key`), the upstream gone. `--record team` records into `team`; without `--record`
 * nothing is recorded anywhere. The upstream is a mock in this process (another seed than the door's own
 * default workspace, so the two never hold the same ids), on a virtual clock so its records hold still;
 * the processes run on a virtual clock too, so the offline mock serves the calls as recorded instead of
 * moving those in progress on.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startMock, type RunningMock } from "../../server.js";
import { spawnMock, type MockProcess } from "../process.js";
import { type OwnUpstream, realAnswer, startUpstream } from "./broken-upstream.js";
import { without, withValues } from "../dotted-paths.js";

type Json = Record<string, any>;

const dir = mkdtempSync(join(tmpdir(), "mock-record-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const upstreams: RunningMock[] = [];
const processes: MockProcess[] = [];
afterEach(async () => {
  await Promise.all(processes.splice(0).map((p) => p.stop("SIGKILL")));
  await Promise.all(upstreams.splice(0).map((u) => u.close()));
});

async function upstream(): Promise<RunningMock> {
  const started = await startMock({ port: 0, host: "127.0.0.1", seed: 7, clock: "virtual", log: () => undefined });
  upstreams.push(started);
  return started;
}

async function spawn(args: string[]): Promise<MockProcess> {
  const started = await spawnMock(["--log-format", "off", "--clock", "virtual", ...args]);
  processes.push(started);
  return started;
}

/** The door's banner up to its Drift line: spawnMock resolves on the first two lines, the rest may come later. */
async function banner(door: MockProcess): Promise<string> {
  const deadline = Date.now() + 5_000;
  while (!/Drift: .*\n/.test(door.stdout()) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 20));
  return door.stdout();
}

/** One request; the JSON answer (undefined when empty) with its status and X-Mock-Source. */
async function call(
  base: string,
  method: string,
  path: string,
  key: string | null,
  body?: unknown,
): Promise<{ status: number; source: string | null; body: any }> {
  const headers: Record<string, string> = key === null ? {} : { "X-API-Key": key };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(base + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, source: res.headers.get("x-mock-source"), body: text ? JSON.parse(text) : undefined };
}

/** A GET that must answer 200: its body. */
async function get(base: string, path: string, key: string | null): Promise<any> {
  const answer = await call(base, "GET", path, key);
  expect(answer.status, `GET ${path}: ${JSON.stringify(answer.body)}`).toBe(200);
  return answer.body;
}

const byId = (records: Json[], id: string) => new Map(records.map((r) => [r[id] as string, r]));

describe("--record, then the recording served offline", () => {
  it("keeps what passes the door by id, the last seen winning, and a plain mock serves it from the state file", async () => {
    const up = await upstream();
    const key = up.apiKey;
    // A call whose status moves when the upstream's clock does: fetched before and after, the later answer stays.
    const moving = (
      await call(up.url, "POST", "/__mock/workspaces/default/calls", null, {
        outcome: { status: "ended", afterSeconds: 60 },
      })
    ).body as Json;
    expect(moving.status).toBe("scheduled");
    const file = join(dir, "recorded.json");
    const door = await spawn(["--upstream", up.url, "--record", "--state-file", file]);
    expect(await banner(door)).toMatch(/Drift: .*; recording into workspace recorded \(key recorded-api-key\)\n/);

    // Two pages of calls, an agent list, the phone numbers, a write and a chat, all through the door.
    const page0 = await call(door.url, "GET", "/v1/calls?page=0&size=5", key);
    const page1 = await call(door.url, "GET", "/v1/calls?page=1&size=5", key);
    expect([page0.status, page0.source, page1.status, page1.source]).toEqual([200, "upstream", 200, "upstream"]);
    const paged = [...page0.body.data, ...page1.body.data] as Json[];
    expect(paged).toHaveLength(10);
    expect(paged[0].callId).toBe(moving.callId);
    const agents = await call(door.url, "GET", "/v1/agents", key);
    expect(agents.source).toBe("upstream");
    const numbers = (await get(door.url, "/v1/phone-number", key)).data as Json[];
    const number = numbers[0].sipPhoneNumber as string;
    const numberPath = `/v1/phone-number/${encodeURIComponent(number)}`;
    const updated = await call(door.url, "PATCH", numberPath, key, { friendlyName: "Renamed through the door" });
    expect([updated.status, updated.source, updated.body.friendlyName]).toEqual([
      200,
      "upstream",
      "Renamed through the door",
    ]);
    const agentId = agents.body.data[0].agentId as string;
    const chat = await call(door.url, "POST", "/v1/chat", key, { agentId, conversation: "Where is my order?" });
    expect([chat.status, chat.source]).toEqual([200, "upstream"]);

    // Changes the door does not see: the call ends (the upstream's clock), the number is renamed on the upstream.
    await call(up.url, "POST", "/__mock/clock/advance", null, { seconds: 120 });
    expect(
      (await call(up.url, "PATCH", numberPath, key, { friendlyName: "Renamed on the upstream" })).body.friendlyName,
    ).toBe("Renamed on the upstream");
    // Seen again through the door: these answers are the ones kept.
    const ended = await call(door.url, "GET", `/v1/calls/${moving.callId}`, key);
    expect([ended.status, ended.source, ended.body.status]).toEqual([200, "upstream", "ended"]);
    const numbersAgain = (await get(door.url, "/v1/phone-number", key)).data as Json[];

    // The recording, read on the door's control plane right after (reads wait for what is under way).
    const workspaces = (await get(door.url, "/__mock/workspaces", null)) as { workspaceId: string }[];
    expect(workspaces.map((w) => w.workspaceId).sort()).toEqual(["default", "recorded"]);
    const recordedCalls = (await get(door.url, "/__mock/workspaces/recorded/calls", null)) as Json[];
    const expectedCalls = byId(paged, "callId");
    expectedCalls.set(moving.callId, ended.body);
    expect(new Set(recordedCalls.map((c) => c.callId))).toEqual(new Set(expectedCalls.keys()));
    for (const recorded of recordedCalls) expect(recorded).toEqual(expectedCalls.get(recorded.callId));
    expect(recordedCalls.find((c) => c.callId === moving.callId)!.status).toBe("ended");
    // What the upstream answers now for the moved call is what was kept: the same record, field for field.
    expect(await get(up.url, `/v1/calls/${moving.callId}`, key)).toEqual(
      recordedCalls.find((c) => c.callId === moving.callId),
    );

    const recordedNumbers = (await get(door.url, "/__mock/workspaces/recorded/phoneNumbers", null)) as Json[];
    expect(recordedNumbers.map((n) => n.sipPhoneNumber).sort()).toEqual(
      numbersAgain.map((n) => n.sipPhoneNumber).sort(),
    );
    expect(recordedNumbers.find((n) => n.sipPhoneNumber === number)!.friendlyName).toBe("Renamed on the upstream");

    const recordedAgents = (await get(door.url, "/__mock/workspaces/recorded/agents", null)) as Json[];
    expect(recordedAgents.map((a) => a.agentId).sort()).toEqual(
      (agents.body.data as Json[]).map((a) => a.agentId).sort(),
    );
    // Webhook secrets inside agent settings are not kept.
    const secrets = (agents.body.data as Json[]).flatMap((a) =>
      (a.agentSettings.webhooks as Json[]).map((w) => w.secret as string),
    );
    expect(secrets.length).toBeGreaterThan(0);
    for (const secret of secrets) expect(JSON.stringify(recordedAgents)).not.toContain(secret);
    const keptWebhooks = recordedAgents.flatMap((a) => a.agentSettings.webhooks as Json[]);
    expect(keptWebhooks.map((w) => w.secret)).toEqual(secrets.map(() => "[redacted]"));

    const recordedChats = (await get(door.url, "/__mock/workspaces/recorded/chats", null)) as Json[];
    expect(recordedChats).toEqual([
      expect.objectContaining({ id: chat.body.id, agentId, conversation: "Where is my order?" }),
    ]);
    // The door's own default workspace holds none of it.
    const defaultCalls = (await get(door.url, "/__mock/workspaces/default/calls", null)) as Json[];
    expect(defaultCalls.some((c) => expectedCalls.has(c.callId))).toBe(false);

    // SIGTERM: the door saves its state; the upstream goes away.
    const exit = await door.stop("SIGTERM");
    expect(exit.code, exit.stderr).toBe(0);
    expect(exit.stdout).toMatch(`State saved to ${file}`);
    await up.close();
    upstreams.splice(upstreams.indexOf(up), 1);

    // A plain mock (no --upstream) on the same file serves the recording with the workspace's key.
    const offline = await spawn(["--state-file", file]);
    expect(offline.stdout()).toMatch(/restored/);
    const served = await call(offline.url, "GET", "/v1/calls?size=100", "recorded-api-key");
    expect([served.status, served.source]).toEqual([200, null]);
    expect(served.body.totalCount).toBe(expectedCalls.size);
    expect(new Set((served.body.data as Json[]).map((c) => c.callId))).toEqual(new Set(expectedCalls.keys()));
    for (const offlineCall of served.body.data as Json[])
      expect(offlineCall).toEqual(expectedCalls.get(offlineCall.callId));
    expect(await get(offline.url, `/v1/calls/${moving.callId}`, "recorded-api-key")).toEqual(
      expectedCalls.get(moving.callId),
    );
    const servedNumbers = (await get(offline.url, "/v1/phone-number?size=100", "recorded-api-key")).data as Json[];
    expect(servedNumbers.find((n) => n.sipPhoneNumber === number)!.friendlyName).toBe("Renamed on the upstream");
    const servedAgents = (await get(offline.url, "/v1/agents?size=100", "recorded-api-key")).data as Json[];
    expect(servedAgents.map((a) => a.agentId).sort()).toEqual(recordedAgents.map((a) => a.agentId).sort());
    // The upstream's key means nothing offline: the records are the recorded workspace's.
    const otherKey = await call(offline.url, "GET", `/v1/calls/${moving.callId}`, "mock-api-key");
    expect(otherKey.status).toBe(404);
  }, 90_000);

  it("--record team records into the workspace team", async () => {
    const up = await upstream();
    const door = await spawn(["--upstream", up.url, "--record", "team"]);
    expect(await banner(door)).toMatch(/Drift: .*; recording into workspace team \(key team-api-key\)\n/);
    const agents = (await get(door.url, "/v1/agents", up.apiKey)).data as Json[];
    const calls = (await get(door.url, "/v1/calls?size=3", up.apiKey)).data as Json[];
    const workspaces = (await get(door.url, "/__mock/workspaces", null)) as { workspaceId: string }[];
    expect(workspaces.map((w) => w.workspaceId).sort()).toEqual(["default", "team"]);
    const recordedAgents = (await get(door.url, "/__mock/workspaces/team/agents", null)) as Json[];
    expect(recordedAgents.map((a) => a.agentId).sort()).toEqual(agents.map((a) => a.agentId).sort());
    const recordedCalls = (await get(door.url, "/__mock/workspaces/team/calls", null)) as Json[];
    const expected = byId(calls, "callId");
    expect(recordedCalls).toHaveLength(3);
    for (const recorded of recordedCalls) expect(recorded).toEqual(expected.get(recorded.callId));
    expect((await call(door.url, "GET", "/__mock/workspaces/recorded/calls", null)).status).toBe(404);
  }, 60_000);

  it("without --record nothing is recorded into any workspace", async () => {
    const up = await upstream();
    const door = await spawn(["--upstream", up.url]);
    expect(await banner(door)).toMatch(/Drift: .*--url http:\/\/[^\s]+\)\n/);
    const before = (await get(door.url, "/__mock/workspaces", null)) as Json[];
    const defaultBefore = (await get(door.url, "/__mock/workspaces/default/calls", null)) as Json[];
    const page = await call(door.url, "GET", "/v1/calls?size=5", up.apiKey);
    expect([page.status, page.source]).toEqual([200, "upstream"]);
    const one = await call(door.url, "GET", `/v1/calls/${page.body.data[0].callId}`, up.apiKey);
    expect([one.status, one.source]).toEqual([200, "upstream"]);
    expect((await call(door.url, "GET", "/v1/agents", up.apiKey)).status).toBe(200);
    expect((await call(door.url, "GET", "/v1/phone-number", up.apiKey)).status).toBe(200);

    expect(await get(door.url, "/__mock/workspaces", null)).toEqual(before);
    expect(before.map((w) => w.workspaceId)).toEqual(["default"]);
    const defaultAfter = (await get(door.url, "/__mock/workspaces/default/calls", null)) as Json[];
    expect(defaultAfter).toEqual(defaultBefore);
    const upstreamIds = new Set((page.body.data as Json[]).map((c) => c.callId));
    expect(defaultAfter.some((c) => upstreamIds.has(c.callId))).toBe(false);
    expect((await call(door.url, "GET", "/__mock/workspaces/recorded/calls", null)).status).toBe(404);
  }, 60_000);
});

/**
 * In front of an implementation of the reference that leaves out what the reference gives no value
 * (a node:http upstream of the test's own, answering a real mock's records with those fields removed):
 * the door keeps its records, filled as the spec's record rule says, tells it once per kind of record,
 * refuses what the reference itself refuses, and a plain mock serves the recording back valid.
 */
describe("--record in front of an upstream that omits what only the record rule adds", () => {
  const KEY = "sk-staging-0123456789abcdef";
  const lines: string[] = [];
  let source: RunningMock;
  let upstream: OwnUpstream;
  let door: RunningMock;
  let sent: { agents: Json[]; numbers: Json[]; calls: Json[]; loud: Json; nameless: Json };

  beforeAll(async () => {
    source = await startMock({ seed: 7, clock: "virtual", log: () => undefined });
    const read = async (path: string) => (await realAnswer(source, path)).body;
    const agentPage = await read("/v1/agents?size=100");
    const numberPage = await read("/v1/phone-number?size=100");
    const callPage = await read("/v1/calls?size=6");
    const [a, b, c, d] = agentPage.data as Json[];
    sent = {
      agents: [
        without(a, ["agentSettings.globalPrompt", "agentSettings.agentTimezone", "agentSettings.webhooks"]),
        without(b, ["agentSettings.echoCancellation", "agentSettings.postConversationAnalysis"]),
      ],
      // Refused at the documented level too: a welcome type the reference does not list, and no id.
      loud: without({ ...c, welcomeMessageType: "loud" }, ["agentSettings.globalPrompt"]),
      nameless: without(d, ["agentId", "agentSettings.webhooks"]),
      numbers: (numberPage.data as Json[]).map((n) => without(n, ["friendlyName", "terminationSipURI"])),
      calls: (callPage.data as Json[]).map((call) => without(call, ["transcript", "campaign"])),
    };
    const page = (template: Json, data: Json[]) => ({ status: 200, body: { ...template, data } });
    upstream = await startUpstream({
      "GET /v1/agents": page(agentPage, [...sent.agents, sent.loud, sent.nameless]),
      "GET /v1/phone-number": page(numberPage, sent.numbers),
      "GET /v1/calls?size=6": page(callPage, sent.calls),
      [`GET /v1/calls/${sent.calls[0].callId}`]: { status: 200, body: sent.calls[0] },
    });
    door = await startMock({
      upstream: upstream.url,
      upstreamApiKey: KEY,
      record: true,
      clock: "virtual",
      log: (line) => lines.push(line),
    });
  });
  afterAll(async () => {
    await door?.close();
    await upstream?.close();
    await source?.close();
  });

  it("keeps them with those fields filled, refuses what fails the reference, and tells each kind once", async () => {
    for (let round = 0; round < 2; round++)
      for (const path of ["/v1/agents", "/v1/phone-number", "/v1/calls?size=6", `/v1/calls/${sent.calls[0].callId}`]) {
        const answer = await call(door.url, "GET", path, "client-key");
        expect([answer.status, answer.source], path).toEqual([200, "upstream"]);
      }

    const agents = (await get(door.url, "/__mock/workspaces/recorded/agents", null)) as Json[];
    expect(byId(agents, "agentId")).toEqual(
      byId(
        [
          withValues(sent.agents[0], {
            "agentSettings.globalPrompt": null,
            "agentSettings.agentTimezone": null,
            "agentSettings.webhooks": [],
          }),
          // Its webhooks' secrets are not kept, as ever.
          withValues(sent.agents[1], {
            "agentSettings.echoCancellation": null,
            "agentSettings.postConversationAnalysis": [],
            "agentSettings.webhooks": sent.agents[1].agentSettings.webhooks.map((w: Json) => ({
              ...w,
              secret: "[redacted]",
            })),
          }),
        ],
        "agentId",
      ),
    );
    const numbers = (await get(door.url, "/__mock/workspaces/recorded/phoneNumbers", null)) as Json[];
    expect(byId(numbers, "sipPhoneNumber")).toEqual(
      byId(
        sent.numbers.map((n) => withValues(n, { friendlyName: null, terminationSipURI: null })),
        "sipPhoneNumber",
      ),
    );
    const calls = (await get(door.url, "/__mock/workspaces/recorded/calls", null)) as Json[];
    expect(byId(calls, "callId")).toEqual(
      byId(
        sent.calls.map((c) => withValues(c, { transcript: null, campaign: null })),
        "callId",
      ),
    );

    // One line per kind of record, however many records and answers held it; field names, no values.
    const told = lines.filter((line) => line.startsWith("recording:"));
    expect(told.map((line) => line.split(" ")[1]).sort()).toEqual(["agents", "calls", "phoneNumbers"]);
    const said = (kind: string) => told.find((line) => line.startsWith(`recording: ${kind} `))!;
    expect(said("agents")).toMatch(
      /^recording: agents from the upstream lacked .*; filled as the spec's record rule says \(null, \[\]\)$/,
    );
    for (const field of ["globalPrompt", "agentTimezone", "webhooks", "echoCancellation", "postConversationAnalysis"])
      expect(said("agents")).toContain(`agentSettings.${field}`);
    expect(said("phoneNumbers")).toBe(
      "recording: phoneNumbers from the upstream lacked terminationSipURI, friendlyName; filled as the spec's record rule says (null)",
    );
    expect(said("calls")).toBe(
      "recording: calls from the upstream lacked campaign, transcript; filled as the spec's record rule says (null)",
    );
    for (const line of lines) expect(line).not.toContain(KEY);

    // Refused as before, with the reason the reference gives, told once each.
    const refused = lines.filter((line) => line.startsWith("not recorded:"));
    expect(refused.sort()).toEqual([
      "not recorded: agents (no id) fails the spec (agentId is required)",
      `not recorded: agents ${sent.loud.agentId} fails the spec (welcomeMessageType must be one of: static, prompt)`,
    ]);
  });

  it("serves the recording back from a plain mock, every answer valid as the mock's own must be", async () => {
    const snapshot = await get(door.url, "/__mock/workspaces/recorded/snapshot", null);
    const offline = await startMock({ clock: "virtual", log: () => undefined });
    try {
      const made = await call(offline.url, "POST", "/__mock/workspaces", null, { empty: true });
      expect(made.status).toBe(201);
      const { workspaceId, apiKey } = made.body as { workspaceId: string; apiKey: string };
      const imported = await call(offline.url, "PUT", `/__mock/workspaces/${workspaceId}/snapshot`, null, snapshot);
      expect(imported.status, JSON.stringify(imported.body)).toBe(200);
      // The mock validates its answers (a record off the spec would answer 500), and serves the records as kept.
      const agents = (await get(offline.url, "/v1/agents?size=100", apiKey)).data as Json[];
      expect(byId(agents, "agentId")).toEqual(byId(snapshot.agents, "agentId"));
      expect(
        agents.every((a) => a.agentSettings.globalPrompt !== undefined && Array.isArray(a.agentSettings.webhooks)),
      ).toBe(true);
      const numbers = (await get(offline.url, "/v1/phone-number?size=100", apiKey)).data as Json[];
      expect(byId(numbers, "sipPhoneNumber")).toEqual(byId(snapshot.phoneNumbers, "sipPhoneNumber"));
      const calls = (await get(offline.url, "/v1/calls?size=100", apiKey)).data as Json[];
      expect(byId(calls, "callId")).toEqual(byId(snapshot.calls, "callId"));
      const one = await get(offline.url, `/v1/calls/${sent.calls[0].callId}`, apiKey);
      expect(one).toEqual(withValues(sent.calls[0], { transcript: null, campaign: null }));
    } finally {
      await offline.close();
    }
  });
});

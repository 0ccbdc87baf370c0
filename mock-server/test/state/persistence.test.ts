/**
 * --state-file, on the real process: every record survives SIGTERM and a restart; kill -9 loses at
 * most the last --save-interval; a corrupt, foreign or unreadable file stops the start with exit
 * code 2 and is kept byte for byte; a save replaces the file atomically.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { writeStateFile } from "../../node/persistence.js";
import { collectionNames } from "../../store/records.js";
import { runMockToExit, spawnMock, type MockProcess } from "../process.js";

const dir = mkdtempSync(join(tmpdir(), "mock-state-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function call(
  mock: { url: string },
  method: string,
  path: string,
  key: string | null,
  body?: unknown,
): Promise<any> {
  const headers: Record<string, string> = key === null ? {} : { "X-API-Key": key };
  let payload: BodyInit | undefined;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    payload = JSON.stringify(body);
  }
  const res = await fetch(mock.url + path, { method, headers, body: payload });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** Every record of every workspace, through the control plane, and the clock. */
async function dump(mock: MockProcess) {
  const workspaces = (await call(mock, "GET", "/__mock/workspaces", null)).body as { workspaceId: string }[];
  const records: Record<string, Record<string, unknown[]>> = {};
  for (const { workspaceId } of workspaces) {
    records[workspaceId] = {};
    for (const name of collectionNames)
      records[workspaceId][name] = (await call(mock, "GET", `/__mock/workspaces/${workspaceId}/${name}`, null)).body;
  }
  return { workspaces, records, clock: (await call(mock, "GET", "/__mock/clock", null)).body };
}

/** Writes of every kind: API creates, patches, a delete, credentials, a new workspace, moved time. */
async function writeEverything(mock: MockProcess) {
  const key = mock.apiKey;
  const integration = (await call(mock, "POST", "/v1/integrations", key, { name: "kept", description: "before" })).body;
  expect(
    (await call(mock, "PATCH", `/v1/integrations/${integration.integrationId}`, key, { description: "after" })).status,
  ).toBe(200);
  expect(
    (
      await call(mock, "POST", `/v1/integrations/${integration.integrationId}/auth`, key, {
        authType: "BEARER",
        token: "tok-kept-1",
      })
    ).status,
  ).toBe(200);
  const number = (await call(mock, "GET", "/v1/phone-number", key)).body.data[0].sipPhoneNumber;
  expect(
    (
      await call(mock, "PATCH", `/v1/phone-number/${encodeURIComponent(number)}`, key, {
        friendlyName: "renamed",
        trunkPassword: "pw-kept-1",
      })
    ).status,
  ).toBe(200);
  const rule = (await call(mock, "GET", "/__mock/workspaces/default/qaRules", null)).body[0].qaRuleId;
  expect((await call(mock, "DELETE", `/v1/qa-rules/${rule}`, key)).status).toBe(204);
  const form = new FormData();
  form.set("name", "kept kb");
  form.append("knowledge_base_files", new Blob(["# kept"]), "kept.md");
  expect((await call(mock, "POST", "/v1/knowledge-bases", key, form)).status).toBe(201);
  const agentId = (await call(mock, "GET", "/v1/agents", key)).body.data[0].agentId;
  expect((await call(mock, "POST", "/v1/chat", key, { agentId, conversation: "hello" })).status).toBe(200);
  const other = (await call(mock, "POST", "/__mock/workspaces", null, { seed: 7 })).body;
  expect(
    (await call(mock, "POST", `/__mock/workspaces/${other.workspaceId}/calls`, null, { status: "ended" })).status,
  ).toBe(201);
  expect((await call(mock, "POST", "/__mock/clock/advance", null, { seconds: 90 })).status).toBe(200);
  return { integration, rule, other };
}

// Every test has its own state file and its own processes, and mostly waits on them: run side by side.
describe.concurrent("--state-file", () => {
  it("restores every record, key and secret after SIGTERM and a restart", async () => {
    const file = join(dir, "restart.json");
    const args = ["--state-file", file, "--save-interval", "3600", "--clock", "virtual"];
    const first = await spawnMock(args);
    const { integration, rule, other } = await writeEverything(first);
    const before = await dump(first);
    const exit = await first.stop("SIGTERM");
    expect(exit.code, exit.stderr).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const second = await spawnMock(args);
    try {
      expect(second.stdout()).toContain("restored");
      expect(await dump(second)).toEqual(before);
      expect((await call(second, "GET", "/v1/calls", other.apiKey)).status).toBe(200);
      expect((await call(second, "GET", `/v1/qa-rules/${rule}`, second.apiKey)).status).toBe(404);
      const restored = (await call(second, "GET", `/v1/integrations/${integration.integrationId}`, second.apiKey)).body;
      expect([restored.description, restored.authentication?.authType]).toEqual(["after", "BEARER"]);
    } finally {
      expect((await second.stop("SIGTERM")).code).toBe(0);
    }
    // The secrets went to disk too (the file is the only place they are kept), and came back.
    const saved = JSON.parse(readFileSync(file, "utf8"));
    const credentials = new Map(
      saved.workspaces.find((w: { workspaceId: string }) => w.workspaceId === "default").credentials,
    );
    expect(credentials.get(integration.integrationId)).toEqual({ authType: "BEARER", token: "tok-kept-1" });
  });

  it("loses at most the last interval on kill -9", async () => {
    const file = join(dir, "killed.json");
    const args = ["--state-file", file, "--save-interval", "1", "--clock", "virtual"];
    const first = await spawnMock(args);
    const { integrationId } = (
      await call(first, "POST", "/v1/integrations", first.apiKey, { name: "saved by the interval" })
    ).body;
    // The next interval's save holds it (generous bound: the shared CI machine may be slow).
    for (let waited = 0; !readFileSync(file, "utf8").includes(integrationId); waited += 100) {
      if (waited > 30_000) throw new Error("no save within 30 s at --save-interval 1");
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await first.stop("SIGKILL")).signal).toBe("SIGKILL");

    const second = await spawnMock(args);
    try {
      expect((await call(second, "GET", `/v1/integrations/${integrationId}`, second.apiKey)).body.name).toBe(
        "saved by the interval",
      );
    } finally {
      await second.stop();
    }
  });

  const refusals: [string, (file: string) => void, RegExp][] = [
    [
      "truncated JSON",
      (f) => writeFileSync(f, '{"version":1,"savedAt":"2026-11-01T12:00:00.000Z","workspaces":[{"workspaceId":"def'),
      /is not valid JSON/,
    ],
    ["another program's JSON", (f) => writeFileSync(f, '{"hello":"world"}'), /is not a version 1 mock state/],
    [
      "a state with a broken workspace",
      (f) => writeFileSync(f, '{"version":1,"savedAt":"2026-11-01T12:00:00.000Z","workspaces":[{"workspaceId":"w"}]}'),
      /cannot be restored/,
    ],
    [
      "a state with a broken record",
      (f) =>
        writeFileSync(
          f,
          JSON.stringify({
            version: 1,
            savedAt: "2026-11-01T12:00:00.000Z",
            workspaces: [
              {
                workspaceId: "w",
                apiKey: "k",
                seed: 1,
                empty: true,
                readOnly: false,
                collections: { calls: [42] },
                credentials: [],
                trunks: [],
              },
            ],
          }),
        ),
      /cannot be restored/,
    ],
    ["binary garbage", (f) => writeFileSync(f, Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x7b])), /is not valid JSON/],
  ];

  it.each(refusals)("refuses %s with exit code 2 and keeps the file byte for byte", async (_name, write, message) => {
    const file = join(dir, `refused-${Math.random().toString(36).slice(2)}.json`);
    write(file);
    const bytes = readFileSync(file);
    const mtime = statSync(file).mtimeMs;
    const exit = await runMockToExit(["--state-file", file, "--save-interval", "1"]);
    expect(exit.code).toBe(2);
    expect(exit.stderr).toMatch(message);
    expect(exit.stderr).toContain(file);
    expect(exit.stderr).toMatch(/left as it is/);
    expect(readFileSync(file).equals(bytes)).toBe(true);
    expect(statSync(file).mtimeMs).toBe(mtime);
  });

  it("refuses an unreadable state file and one it cannot write, with exit code 2", async () => {
    const directory = join(dir, "a-directory.json");
    mkdirSync(directory);
    const [unreadable, unwritable] = await Promise.all([
      runMockToExit(["--state-file", directory]),
      runMockToExit(["--state-file", join(dir, "no-such-directory", "state.json")]),
    ]);
    expect(unreadable.code).toBe(2);
    expect(unreadable.stderr).toMatch(/cannot be read/);
    expect(statSync(directory).isDirectory()).toBe(true);

    expect(unwritable.code).toBe(2);
    expect(unwritable.stderr).toMatch(/cannot be written/);
  });
});

describe("atomic save", () => {
  it("replaces the file in one step: the old file is never written into", async () => {
    const file = join(dir, "atomic.json");
    writeFileSync(file, '{"which":"old"}');
    // Held open across the save: an in-place write would change what this descriptor reads.
    const held = await open(file, "r");
    try {
      await writeStateFile(file, '{"which":"new"}');
      expect(await held.readFile("utf8")).toBe('{"which":"old"}');
      expect((await held.stat()).ino).not.toBe(statSync(file).ino);
    } finally {
      await held.close();
    }
    expect(readFileSync(file, "utf8")).toBe('{"which":"new"}');
    expect(() => statSync(`${file}.tmp`)).toThrow();
  });

  it("leaves the file untouched when the new state cannot be written", async () => {
    const file = join(dir, "untouched.json");
    writeFileSync(file, '{"kept":true}');
    mkdirSync(`${file}.tmp`);
    await expect(writeStateFile(file, '{"kept":false}')).rejects.toThrow();
    expect(readFileSync(file, "utf8")).toBe('{"kept":true}');
  });
});

/**
 * npm start -- --watch: a change under spec/ is regenerated and reloaded into the running mock.
 * In process: the rule that fits the stored records to a new spec (control/spec-fit.ts) and the
 * caches that follow an installed spec. As a process: the whole loop, on a throwaway copy of the
 * repository (spec/, generated/ and the generator are rewritten there, never here), with
 * node_modules linked in.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fitWorkspace } from "../../control/spec-fit.js";
import { createMock } from "../../mock/mock.js";
import type { Workspace } from "../../store/workspace.js";
import { useMock } from "../harness.js";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

describe("fitting the stored records to a reloaded spec", () => {
  const fresh = () => {
    const mock = createMock({
      clock: { mode: "virtual", start: new Date("2026-11-01T12:00:00Z") },
      log: () => undefined,
    });
    return { mock, workspace: mock.services.workspaces.get("default")! };
  };
  const refuse = (pick: (name: string, record: any) => boolean) => (name: string, record: unknown) =>
    pick(name, record) ? { field: "no longer fits" } : undefined;

  it("keeps every record that fits as it is, the very same objects", async () => {
    const { mock, workspace } = fresh();
    const before = workspace.collections.agents.all();
    const fit = fitWorkspace(workspace);
    expect(fit.dropped).toEqual([]);
    expect(fit.followed).toEqual([]);
    expect(fit.records).toBe(Object.values(workspace.counts()).reduce((a, b) => a + b, 0));
    expect(workspace.collections.agents.all()).toEqual(before);
    workspace.collections.agents.all().forEach((agent, i) => expect(agent).toBe(before[i]));
    await mock.close();
  });

  it("drops the records that no longer fit, naming collection and reason, and nothing else", async () => {
    const { mock, workspace } = fresh();
    const integrations = workspace.collections.integrations.all();
    const calls = workspace.collections.calls.all();
    const fit = fitWorkspace(
      workspace,
      refuse((name) => name === "integrations"),
    );
    expect(fit.dropped).toEqual([
      { collection: "integrations", count: integrations.length, reasons: ["field: no longer fits"] },
    ]);
    expect(workspace.collections.integrations.size).toBe(0);
    for (const { integrationId } of integrations) expect(workspace.credentials.has(integrationId)).toBe(false);
    expect(workspace.collections.calls.all()).toEqual(calls);
    await mock.close();
  });

  it("drops a call and its chat together: they are one E16 conversation", async () => {
    const { mock, workspace } = fresh();
    const agent = workspace.collections.agents.all()[0];
    const chat = mock.services.simulation.chat(workspace, agent, "Hello there", {});
    expect(workspace.collections.calls.has(chat.id)).toBe(true);
    const fit = fitWorkspace(
      workspace,
      refuse((name, record) => name === "calls" && record.callId === chat.id),
    );
    expect(workspace.collections.calls.has(chat.id)).toBe(false);
    expect(workspace.collections.chats.has(chat.id)).toBe(false);
    expect(fit.followed).toEqual([
      { collection: "chats", count: 1, how: "were dropped with their calls (the same E16 conversations)" },
    ]);
    await mock.close();
  });

  it("drops a batch run's test runs with it, and counts a batch again when it loses a test run", async () => {
    const { mock, workspace } = fresh();
    const [first, second] = workspace.collections.batchRuns.all().filter((b) => b.totalAttempts > 0);
    const runsOf = (w: Workspace, batchId: string) => w.collections.testRuns.all().filter((r) => r.batchId === batchId);
    const lost = runsOf(workspace, second.batchId).find((r) => r.completedDate !== null)!;
    const fit = fitWorkspace(
      workspace,
      refuse(
        (name, record) =>
          (name === "batchRuns" && record.batchId === first.batchId) ||
          (name === "testRuns" && record.jobId === lost.jobId),
      ),
    );
    expect(runsOf(workspace, first.batchId)).toEqual([]);
    expect(workspace.collections.batchRuns.get(second.batchId)!.totalAttempts).toBe(second.totalAttempts - 1);
    expect(fit.followed.map((f) => f.how)).toEqual([
      "were dropped with their batch runs",
      "were counted again without their dropped test runs",
    ]);
    await mock.close();
  });

  it("takes a dropped webhook out of its agent's agentSettings.webhooks", async () => {
    const { mock, workspace } = fresh();
    const agent = workspace.collections.agents.all().find((a) => (a.agentSettings.webhooks ?? []).length > 0)!;
    const gone = agent.agentSettings.webhooks![0].webhookId;
    const fit = fitWorkspace(
      workspace,
      refuse((name, record) => name === "webhooks" && record.webhookId === gone),
    );
    expect(
      workspace.collections.agents.get(agent.agentId)!.agentSettings.webhooks!.map((w) => w.webhookId),
    ).not.toContain(gone);
    expect(fit.followed).toEqual([
      { collection: "agents", count: 1, how: "list only the webhooks they have left in agentSettings.webhooks" },
    ]);
    await mock.close();
  });
});

describe("a spec installed while the mock runs", () => {
  const t = useMock();

  it("routes new requests by it, and /openapi.json and the docs follow", async () => {
    const mock = t.mock.mock;
    const original = mock.contract().spec;
    const document = structuredClone(original.document);
    delete document.paths["/v1/chat"];
    (document.info as { description: string }).description = "Installed while running";
    try {
      expect((await t.raw("/v1/chat", { method: "POST" })).status).toBe(400);
      await t.raw("/docs/openapi.json");
      mock.installSpec({ document, validators: original.validators });
      expect((await t.raw("/v1/chat", { method: "POST" })).status).toBe(404);
      expect(((await (await t.raw("/openapi.json")).json()) as any).info.description).toBe("Installed while running");
      expect(((await (await t.raw("/docs/openapi.json")).json()) as any).paths["/v1/chat"]).toBeUndefined();
    } finally {
      mock.installSpec(original);
    }
    expect((await t.raw("/v1/chat", { method: "POST" })).status).toBe(400);
  });
});

// ---------------------------------------------------------------------------------------------------
// The process, on a copy of the repository.

const COPIED = ["spec", "generated", "scripts", "mock-server", "package.json", "tsconfig.json"];
/** A regeneration takes 3 to 5 s alone; the whole suite runs beside it. */
const RELOAD_LIMIT_MS = 120_000;

interface Watched {
  child: ChildProcess;
  url: string;
  output(): string;
  exited: Promise<number | null>;
}

function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env))
    if (name.startsWith("MOCK_") || name === "PORT" || name === "HOST") delete env[name];
  return env;
}

function launch(cwd: string, args: string[]): Omit<Watched, "url"> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "mock-server/main.ts", "--port", "0", "--host", "127.0.0.1", "--log-format", "off", ...args],
    {
      cwd,
      env: cleanEnv(),
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function until<T>(
  what: string,
  look: () => T | undefined,
  output: () => string,
  limitMs = RELOAD_LIMIT_MS,
): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const found = look();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`no ${what} within ${limitMs} ms; output:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A copy of the repository's files the mock and the generator need, node_modules linked. */
async function copyRepo(entries: string[]): Promise<string> {
  const copy = await mkdtemp(join(tmpdir(), "mock-spec-watch-"));
  for (const entry of entries) await cp(join(ROOT, entry), join(copy, entry), { recursive: true });
  await symlink(join(ROOT, "node_modules"), join(copy, "node_modules"), "dir");
  return copy;
}

describe("npm start -- --watch", { timeout: 4 * RELOAD_LIMIT_MS }, () => {
  let copy: string;
  let mock: Watched;
  /** Reload blocks seen so far: each step waits for the next one. */
  let seen = 0;

  const blocks = () =>
    mock
      .output()
      .split(/^(?=spec\/ changed )/m)
      .slice(1);
  const nextBlock = () =>
    until("reload block on the console", () => (blocks().length > seen ? blocks()[seen++] : undefined), mock.output);

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(mock.url + path, {
      method,
      headers: { "X-API-Key": "mock-api-key", ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  const specFile = (name: string) => join(copy, "spec", "components", "schemas", name);
  const edit = async (name: string, change: (text: string) => string) => {
    const text = await readFile(specFile(name), "utf8");
    const changed = change(text);
    expect(changed).not.toBe(text);
    await writeFile(specFile(name), changed);
  };

  beforeAll(async () => {
    copy = await copyRepo(COPIED);
    const started = launch(copy, ["--watch"]);
    const url = await until(
      "listening line",
      () => /listening on (http:\/\/\S+)\/v1/.exec(started.output())?.[1],
      started.output,
      60_000,
    );
    await until(
      "watching line",
      () => (/Watching: +\S+spec/.test(started.output()) ? true : undefined),
      started.output,
      10_000,
    );
    mock = { ...started, url };
  }, 90_000);

  afterAll(async () => {
    if (mock && mock.child.exitCode === null) {
      process.kill(mock.child.pid!, "SIGTERM");
      await mock.exited;
    }
    if (copy) await rm(copy, { recursive: true, force: true });
  });

  it("serves an edited spec within seconds, says what it reloaded, and keeps a record made before", async () => {
    const made = await api("POST", "/v1/integrations", { name: "Made before the change" });
    expect(made.status).toBe(201);
    expect((await api("POST", "/v1/integrations", { name: "A name of twenty-one!" })).status).toBe(201);

    await edit("IntegrationCreate.yaml", (text) =>
      text
        .replace("    maxLength: 255\n", "    maxLength: 20\n")
        .replace("description: Human-readable name.", "description: Human-readable name, 20 characters at most."),
    );
    const block = await nextBlock();
    expect(block).toMatch(
      /^spec\/ changed \(components\/schemas\/IntegrationCreate\.yaml\): regenerated in \d+\.\d s, reloaded in \d+ ms\n/,
    );
    expect(block).toMatch(/\n {2}operations: \d+ \(0 added; 0 removed\)\n/);
    expect(block).toMatch(/\n {2}state kept: \d+ records in 1 workspace; 0 no longer fit and were dropped/);
    expect(block).not.toMatch(/no longer fit \(/);

    const refused = await api("POST", "/v1/integrations", { name: "A name of twenty-one!" });
    expect(refused.status).toBe(400);
    expect(refused.body.validationErrors.name).toMatch(/more than 20 characters/);
    expect((await api("GET", `/v1/integrations/${made.body.integrationId}`)).body.name).toBe("Made before the change");
    const spec = (await api("GET", "/openapi.json")).body;
    expect(spec.components.schemas.IntegrationCreate.properties.name.description).toBe(
      "Human-readable name, 20 characters at most.",
    );
  });

  it("drops the records a change no longer fits and names them, keeping every other record", async () => {
    const made = await api("POST", "/v1/integrations", { name: "Made before" });
    const call = (await api("GET", "/v1/calls?size=1")).body.data[0];
    await edit(
      "Integration.yaml",
      (text) =>
        text.replace(/^required: \[(.*)\]$/m, "required: [$1, region]") +
        "  region:\n    type: string\n    description: Where the integration runs.\n",
    );
    const block = await nextBlock();
    expect(block).toMatch(
      /\n {4}default: integrations: \d+ records no longer fit \(region: is required\) and were dropped/,
    );
    expect(block).toMatch(/state kept: \d+ records in 1 workspace; [1-9]\d* no longer fit and were dropped/);
    expect((await api("GET", `/v1/integrations/${made.body.integrationId}`)).status).toBe(404);
    expect((await api("GET", `/v1/calls/${call.callId}`)).body).toEqual(call);
  });

  it("does not load a spec the generator refuses, keeps serving the previous one, and loads the fix", async () => {
    const good = await readFile(specFile("IntegrationCreate.yaml"), "utf8");
    await writeFile(specFile("IntegrationCreate.yaml"), `${good}  broken: [unclosed\n    - }\n`);
    const refused = await nextBlock();
    expect(refused).toMatch(
      /^spec\/ changed \(components\/schemas\/IntegrationCreate\.yaml\): NOT loaded, the mock still serves the previous spec\n {2}npm run generate failed:\n/,
    );
    expect(refused).toContain("spec/components/schemas/IntegrationCreate.yaml");
    // The generator's message, not npm's or Node's noise around it.
    expect(refused).not.toMatch(/^\s+at |npm (warn|error)|node:internal/m);
    expect((await api("POST", "/v1/integrations", { name: "A name of twenty-one!" })).status).toBe(400);

    await writeFile(specFile("IntegrationCreate.yaml"), good.replace("    maxLength: 20\n", "    maxLength: 30\n"));
    expect(await nextBlock()).toMatch(
      /^spec\/ changed \(components\/schemas\/IntegrationCreate\.yaml\): regenerated in .*, reloaded in \d+ ms\n/,
    );
    expect(
      (await api("GET", "/openapi.json")).body.components.schemas.IntegrationCreate.properties.name.maxLength,
    ).toBe(30);
  });

  it("loads a change made during a regeneration with one more run after it", async () => {
    await edit("KnowledgeBase.yaml", (text) => text.replace("maxLength: 64", "maxLength: 65"));
    // The first run starts once the spec has been quiet for 250 ms and takes seconds: this lands during it.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(blocks().length).toBe(seen);
    await edit("KnowledgeBase.yaml", (text) => text.replace("maxLength: 65", "maxLength: 66"));
    const first = await nextBlock();
    const second = await nextBlock();
    expect(first).toMatch(/\(components\/schemas\/KnowledgeBase\.yaml\): regenerated/);
    expect(second).toMatch(/\(components\/schemas\/KnowledgeBase\.yaml\): regenerated/);
    const spec = (await api("GET", "/openapi.json")).body;
    expect(JSON.stringify(spec.components.schemas.KnowledgeBase)).toContain('"maxLength":66');
  });
});

describe("npm start -- --watch outside the kit's repository", () => {
  it("exits 2 with one line that says why", async () => {
    const copy = await copyRepo(["generated", "mock-server", "tsconfig.json"]);
    try {
      await writeFile(join(copy, "package.json"), JSON.stringify({ name: "some-app", type: "module" }));
      const run = launch(copy, ["--watch"]);
      const timer = setTimeout(() => run.child.kill("SIGKILL"), 60_000);
      const code = await run.exited;
      clearTimeout(timer);
      expect(code).toBe(2);
      expect(run.output().trim().split("\n")).toEqual([
        expect.stringMatching(/^--watch needs the kit's repository .*no spec\/ to watch$/),
      ]);
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  }, 90_000);
});

/**
 * `npm start` as a user runs it: npm -> sh -c "node dist/mock-server/main.js" -> node (after prestart, which
 * rebuilds dist/ only when a source is newer). The
 * request log reaches npm's stdout, and signalling npm's own pid (SIGTERM, SIGKILL) stops the mock
 * instead of leaving it re-parented on its port; Ctrl-C (SIGINT to the whole process group) too.
 * POSIX only: it reads the process tree with ps.
 */
import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { connect } from "node:net";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const STOP_LIMIT_MS = 8_000;

/** The environment without the mock's own variables, so only the flags given count. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env))
    if (name.startsWith("MOCK_") || name === "PORT" || name === "HOST") delete env[name];
  return env;
}

/** pid -> [ppid, state] of every process; a zombie (state Z) has exited and only waits to be reaped. */
function processTable(): Map<number, { ppid: number; zombie: boolean }> {
  const table = new Map<number, { ppid: number; zombie: boolean }>();
  for (const line of execFileSync("ps", ["-A", "-o", "pid=,ppid=,stat="], { encoding: "utf8" }).split("\n")) {
    const [pid, ppid, stat] = line.trim().split(/\s+/);
    if (pid) table.set(Number(pid), { ppid: Number(ppid), zombie: stat.startsWith("Z") });
  }
  return table;
}

function descendants(root: number): number[] {
  const table = processTable();
  const found = [root];
  for (let i = 0; i < found.length; i++) for (const [pid, p] of table) if (p.ppid === found[i]) found.push(pid);
  return found;
}

const running = (pids: number[]) => {
  const table = processTable();
  return pids.filter((pid) => table.has(pid) && !table.get(pid)!.zombie);
};

const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => (socket.destroy(), resolve(false)));
    socket.once("error", () => resolve(true));
  });

async function until(check: () => boolean | Promise<boolean>, limitMs: number): Promise<boolean> {
  const deadline = Date.now() + limitMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return check();
}

let _started: ChildProcess | undefined;
let tree: number[] = [];
afterEach(() => {
  // A failed test leaves nothing behind: the whole tree, by the pids found before the kill.
  for (const pid of running(tree)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      /* gone meanwhile */
    }
  }
  _started = undefined;
  tree = [];
});

/** `npm start` on a free port, in a process group of its own (as a terminal would run it). */
async function npmStart(): Promise<{ npm: ChildProcess; url: string; port: number; stdout: () => string }> {
  const npm = spawn("npm", ["start", "--", "--port", "0", "--host", "127.0.0.1", "--log-format", "json"], {
    cwd: ROOT,
    env: cleanEnv(),
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  _started = npm;
  let stdout = "";
  let stderr = "";
  npm.stdout!.on("data", (c) => (stdout += c));
  npm.stderr!.on("data", (c) => (stderr += c));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`npm start did not print its URL within 60 s:\n${stdout}\n${stderr}`)),
      60_000,
    );
    npm.stdout!.on("data", () => {
      // The banner's last line: the URL and the rest may come in several chunks.
      const found = /listening on (http:\/\/[^\s]+)\/v1\n[^]*Request log: .*\n/.exec(stdout);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    });
    npm.once("exit", (code) => reject(new Error(`npm start exited with ${code}:\n${stdout}\n${stderr}`)));
  });
  return { npm, url, port: Number(new URL(url).port), stdout: () => stdout };
}

describe.skipIf(process.platform === "win32")("npm start", () => {
  it("prints one JSON line per request after the banner", async () => {
    const { npm, url, stdout } = await npmStart();
    tree = descendants(npm.pid!);
    expect(stdout()).toMatch(/Request log: +json/);
    expect((await fetch(`${url}/__mock/health`)).status).toBe(200);
    expect(await until(() => /"path":"\/__mock\/health"/.test(stdout()), 2_000)).toBe(true);
    const line = JSON.parse(
      stdout()
        .split("\n")
        .find((l) => l.includes('"path":"/__mock/health"'))!,
    );
    expect(line).toMatchObject({
      method: "GET",
      path: "/__mock/health",
      status: 200,
      operationId: "getHealth",
      faultId: null,
    });
    expect(new Date(line.time).toISOString()).toBe(line.time);
    process.kill(-npm.pid!, "SIGTERM");
    expect(await until(() => running(tree).length === 0, STOP_LIMIT_MS)).toBe(true);
  }, 90_000);

  it.each([
    ["SIGTERM to npm's pid", (pid: number) => process.kill(pid, "SIGTERM")],
    ["SIGKILL to npm's pid", (pid: number) => process.kill(pid, "SIGKILL")],
    ["SIGINT to the process group (Ctrl-C)", (pid: number) => process.kill(-pid, "SIGINT")],
  ])(
    "stops the mock and every process of the tree on %s",
    async (_, kill) => {
      const { npm, port, stdout } = await npmStart();
      tree = descendants(npm.pid!);
      // npm, sh and node at least.
      expect(
        tree.length,
        execFileSync("ps", ["-o", "pid,ppid,args", "-p", tree.join(",")], { encoding: "utf8" }),
      ).toBeGreaterThanOrEqual(3);
      expect(await refused(port)).toBe(false);
      kill(npm.pid!);
      expect(await until(() => refused(port), STOP_LIMIT_MS), `port ${port} still open`).toBe(true);
      expect(
        await until(() => running(tree).length === 0, STOP_LIMIT_MS),
        `left running: ${running(tree).join(", ")}`,
      ).toBe(true);
      // Stopped as on SIGTERM (requests in flight finish), not cut off.
      expect(stdout()).toMatch(/finishing 0 request\(s\) in flight/);
    },
    90_000,
  );
});

#!/usr/bin/env node
/**
 * npm test, before vitest: makes sure `redis-server` is on PATH, for the shared-store tests
 * (--store redis://), which each start their own on a loopback port (mock-server/test/redis.ts).
 *
 * Present: silent. Missing: installed with apt-get when this runs as root (a CI container, a fresh
 * Debian box), one line saying so. Otherwise one line saying it could not, and still exit 0: the
 * tests that need redis fail on their own with the same hint, and the rest of the suite still runs.
 *
 * Plain JavaScript with no dependencies, like build.mjs: it runs before anything is compiled.
 */
import { spawn } from "node:child_process";
import { accessSync, closeSync, constants, openSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";

const LOG = join(tmpdir(), "ensure-redis-apt.log");

/** Whether `command` is an executable file in one of PATH's directories (what the shell would find). */
function onPath(command) {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, command), constants.X_OK);
      return true;
    } catch {
      // not in this directory
    }
  }
  return false;
}

/** Runs apt-get with its output appended to LOG; resolves true on exit code 0. */
function aptGet(args) {
  const log = openSync(LOG, "a");
  return new Promise((resolve) => {
    const child = spawn("apt-get", args, {
      stdio: ["ignore", log, log],
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
    child.once("error", () => resolve(false));
    child.once("exit", (code) => resolve(code === 0));
  }).finally(() => closeSync(log));
}

async function install() {
  const packageArgs = ["install", "-y", "--no-install-recommends", "redis-server"];
  // Most often a failure is a container whose package lists were never fetched: update once, then retry.
  const installed = (await aptGet(packageArgs)) || ((await aptGet(["update", "-y"])) && (await aptGet(packageArgs)));
  return installed && onPath("redis-server");
}

function giveUp(reason) {
  console.log(
    `redis-server not found and could not be installed (${reason}); the shared-store tests will fail: apt-get install redis-server`,
  );
}

if (!onPath("redis-server")) {
  if (process.getuid?.() !== 0) giveUp("not running as root");
  else if (!onPath("apt-get")) giveUp("no apt-get");
  else if (await install()) console.log(`installed redis-server with apt-get for the shared-store tests (log: ${LOG})`);
  else giveUp(`apt-get failed, see ${LOG}`);
}

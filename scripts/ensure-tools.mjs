#!/usr/bin/env node
/**
 * npm test, before vitest: makes sure the two programs the tests run from Debian are there.
 *   redis-server   the shared-store tests (--store redis://), each starting its own on a loopback port
 *                  (mock-server/test/redis.ts)
 *   Chromium       the browser tests, driven by playwright-core, which downloads no browser here
 *                  (mock-server/test/chromium.ts, which finds it with findChromium() below)
 *
 * Present: silent. Missing: installed with apt-get when this runs as root (a CI container, a fresh
 * Debian box), one line saying so; `apt-get update` runs at most once, only after an install failed.
 * Otherwise one line saying what to install, and still exit 0: the tests that need a missing program
 * fail (redis; Chromium when CI is set) or skip with the same hint, and the rest of the suite still runs.
 *
 * Plain JavaScript with no dependencies, like build.mjs: it runs before anything is compiled.
 * Importing it runs nothing; `node scripts/ensure-tools.mjs` does the above.
 */
import { spawn } from "node:child_process";
import { accessSync, closeSync, constants, openSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Where Chromium is looked for, in order: CHROMIUM_PATH, these names on PATH, then Debian's path. */
const CHROMIUM_NAMES = ["chromium", "chromium-browser", "google-chrome"];
const CHROMIUM_DEBIAN = "/usr/bin/chromium";
export const CHROMIUM_SEARCH = `CHROMIUM_PATH, ${CHROMIUM_NAMES.join(", ")} on PATH, ${CHROMIUM_DEBIAN}`;

function isExecutable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The path of `command` in the first of PATH's directories that has it executable (what the shell would run). */
export function findOnPath(command) {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir && isExecutable(join(dir, command))) return join(dir, command);
  }
  return undefined;
}

/** The Chromium the browser tests launch: the first executable of CHROMIUM_SEARCH, or undefined. */
export function findChromium() {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv && isExecutable(fromEnv)) return fromEnv;
  for (const name of CHROMIUM_NAMES) {
    const found = findOnPath(name);
    if (found) return found;
  }
  return isExecutable(CHROMIUM_DEBIAN) ? CHROMIUM_DEBIAN : undefined;
}

/** What is checked, the Debian package that brings it, and which tests need it. */
const TOOLS = [
  {
    name: "redis-server",
    debian: "redis-server",
    tests: "the shared-store tests",
    found: () => !!findOnPath("redis-server"),
  },
  { name: "Chromium", debian: "chromium", tests: "the browser tests", found: () => !!findChromium() },
];

const LOG = join(tmpdir(), "ensure-tools-apt.log");

/** Runs apt-get with its output appended to LOG; resolves true on exit code 0. */
function aptGet(args) {
  const log = openSync(LOG, "a");
  return new Promise((resolve) => {
    // Waits for another apt-get (a parallel run, a person) instead of failing on its lock.
    const child = spawn("apt-get", ["-o", "DPkg::Lock::Timeout=120", ...args], {
      stdio: ["ignore", log, log],
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
    child.once("error", () => resolve(false));
    child.once("exit", (code) => resolve(code === 0));
  }).finally(() => closeSync(log));
}

/** Installs the tools' packages one at a time (a package this system lacks stops none of the others). */
async function install(tools) {
  let updated = false;
  for (const tool of tools) {
    const args = ["install", "-y", "--no-install-recommends", tool.debian];
    if ((await aptGet(args)) || updated) continue;
    // Most often a failure is a container whose package lists were never fetched: update once, then retry.
    updated = true;
    if (await aptGet(["update", "-y"])) await aptGet(args);
  }
  return tools.filter((tool) => !tool.found());
}

const names = (tools) => tools.map((tool) => tool.name).join(" and ");
const tests = (tools) => [...new Set(tools.map((tool) => tool.tests))].join(" and ");

function giveUp(tools, reason) {
  console.log(
    `${names(tools)} not found and could not be installed (${reason}); ${tests(tools)} will fail or skip: ` +
      `apt-get install ${tools.map((tool) => tool.debian).join(" ")}`,
  );
}

async function main() {
  const missing = TOOLS.filter((tool) => !tool.found());
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0) return giveUp(missing, "not running as root");
  if (!findOnPath("apt-get")) return giveUp(missing, "no apt-get");
  const still = await install(missing);
  const installed = missing.filter((tool) => !still.includes(tool));
  if (still.length > 0) giveUp(still, `apt-get failed, see ${LOG}`);
  if (installed.length > 0)
    console.log(`installed ${names(installed)} with apt-get for ${tests(installed)} (log: ${LOG})`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();

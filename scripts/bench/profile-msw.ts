/**
 * npx tsx scripts/bench/profile-msw.ts [seconds] [--door|--bare] [--scenario NAME] [--keep DIR]
 *
 * Where the MSW door's CPU goes: msw-door.ts (or msw-bare.ts) under `node --cpu-prof`, loaded with
 * part 2's fetch loops (8, 1 s warm-up, then `seconds`, default 5) on one request, then stopped so it
 * writes its profile. Prints the functions with the most self time and, per file (node_modules
 * package, mock-server file, or Node internals), the time of samples whose nearest frame is there.
 */
import { fork } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { ask, root } from "./children.js";
import { MSW_SCENARIOS, type MswAnswer, type MswMessage } from "./msw.js";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  startTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    bare: { type: "boolean", default: false },
    scenario: { type: "string", default: MSW_SCENARIOS[0] },
    keep: { type: "string" },
    top: { type: "string", default: "40" },
  },
});
const seconds = Number(positionals[0] ?? 5);
const dir = values.keep ?? mkdtempSync(path.join(tmpdir(), "msw-prof-"));
const script = (name: string) => fileURLToPath(new URL(name, import.meta.url));
const start = (name: string, profiled: boolean) =>
  fork(script(name), [], {
    cwd: root,
    env: { ...process.env, NODE_ENV: undefined },
    execArgv: [
      ...(profiled ? ["--cpu-prof", "--cpu-prof-dir", dir, "--cpu-prof-interval", "200"] : []),
      "--import",
      "tsx",
    ],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
const ready = (child: ReturnType<typeof fork>) => new Promise((resolve) => child.once("message", resolve));

const door = start("msw-door.ts", !values.bare);
await ready(door);
let target = door;
if (values.bare) {
  const answers: MswAnswer[] = [];
  for (const scenario of MSW_SCENARIOS)
    answers.push(await ask<MswAnswer>(door, { op: "capture", scenario } satisfies MswMessage));
  target = start("msw-bare.ts", true);
  target.send({ answers });
  await ready(target);
}
const options = { connections: 8, durationSec: seconds, warmupSec: 1 };
await ask(target, { op: "run", scenario: values.scenario!, options, measured: false } satisfies MswMessage);
// V8's profile clock and hrtime are both CLOCK_MONOTONIC: only the measured run's samples count.
const from = Number(process.hrtime.bigint() / 1000n);
const figures = await ask(target, {
  op: "run",
  scenario: values.scenario!,
  options,
  measured: true,
} satisfies MswMessage);
const to = Number(process.hrtime.bigint() / 1000n);
console.log(values.bare ? "bare" : "door", values.scenario, figures);
for (const child of new Set([door, target])) {
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

const file = readdirSync(dir)
  // The main thread's (tsx's loader thread writes one of its own).
  .filter((f) => /^CPU\.\d+\.\d+\.\d+\.0\..*\.cpuprofile$/.test(f))
  .map((f) => path.join(dir, f))
  .map((f) => ({ f, profile: JSON.parse(readFileSync(f, "utf8")) as CpuProfile }))
  .sort((a, b) => b.profile.samples.length - a.profile.samples.length)[0];
const { nodes, samples, timeDeltas, startTime } = file.profile;
const byId = new Map(nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const self = new Map<string, number>();
const byOwner = new Map<string, number>();
const ownerOf = (url: string): string | undefined => {
  if (!url) return undefined;
  const nm = url.lastIndexOf("node_modules/");
  if (nm !== -1)
    return url
      .slice(nm + 13)
      .split("/")
      .slice(0, url.slice(nm + 13).startsWith("@") ? 2 : 1)
      .join("/");
  if (url.includes("/mock-server/")) return url.slice(url.indexOf("/mock-server/") + 1);
  if (url.startsWith("node:")) return undefined;
  return url.replace(/^file:\/\//, "").replace(root, "");
};
let total = 0;
let clock = startTime;
samples.forEach((id, i) => {
  const dt = timeDeltas[i] ?? 0;
  clock += dt;
  if (clock < from || clock > to) return;
  const node = byId.get(id)!;
  if (node.callFrame.functionName === "(idle)") return;
  total += dt;
  const key = `${node.callFrame.functionName || "(anon)"} ${node.callFrame.url.replace(/^.*node_modules\//, "").replace(/^file:\/\/.*?\/main\//, "")}:${node.callFrame.lineNumber}`;
  self.set(key, (self.get(key) ?? 0) + dt);
  let at: number | undefined = id;
  let owner: string | undefined;
  while (at !== undefined && !owner) {
    owner = ownerOf(byId.get(at)!.callFrame.url);
    at = parent.get(at);
  }
  const o = owner ?? `(node internals / native: ${node.callFrame.functionName || node.callFrame.url})`;
  byOwner.set(
    o.startsWith("(node") ? "(node internals, native, gc)" : o,
    (byOwner.get(o.startsWith("(node") ? "(node internals, native, gc)" : o) ?? 0) + dt,
  );
});
const requests = (figures as { requests: number }).requests;
const pct = (v: number) =>
  `${((100 * v) / total).toFixed(1).padStart(5)} % ${(v / requests).toFixed(1).padStart(6)} µs/req`;
console.log(`\nbusy samples: ${(total / 1e6).toFixed(2)} s (${file.f})\n\nby nearest file:`);
for (const [k, v] of [...byOwner].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`  ${pct(v)}  ${k}`);
console.log("\nself time:");
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top)))
  console.log(`  ${pct(v)}  ${k}`);

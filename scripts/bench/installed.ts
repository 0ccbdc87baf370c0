/**
 * Part 4b: the kit as another repository runs it. `npm pack`, the tarball installed alone in a
 * fresh project, then its bin `agent-platform-mock` started N times (spawn to the first 200 on
 * /__mock/health), and once more left idle for its RSS and its process count (the bin is one
 * process: node running the compiled mock, no npm, no loader).
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { freePort, root, rssOf, startChild } from "./children.js";
import { timeStart } from "./tooling.js";

export interface InstalledFigures {
  tarballBytes: number;
  tarballFiles: number;
  /** Packages under the fresh project's node_modules after installing the tarball alone. */
  packages: number;
  /** Milliseconds from spawn to the first 200, one per sample. */
  starts: number[];
  startCpu: number[];
  /** RSS after the mock sat idle for `idleMs` once started. */
  idleRss: number;
  /** Absent in figures saved before it was a setting: 2 s then, as the full bench still waits. */
  idleMs?: number;
  /** The bin's process and every process under it. */
  processes: number;
}

const run = promisify(execFile);

/** Every package under a project's node_modules, scoped ones as `@scope/name`. */
export async function installedPackages(project: string): Promise<string[]> {
  const top = path.join(project, "node_modules");
  const names: string[] = [];
  for (const entry of await readdir(top)) {
    if (entry.startsWith(".")) continue;
    if (entry.startsWith("@"))
      for (const scoped of await readdir(path.join(top, entry))) names.push(`${entry}/${scoped}`);
    else names.push(entry);
  }
  return names;
}

/** The process and its descendants, from /proc (Linux). */
export async function processTree(pid: number): Promise<number[]> {
  const parents = new Map<number, number>();
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const text = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    if (text) parents.set(Number(entry), Number(text.slice(text.lastIndexOf(")") + 2).split(" ")[1]));
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) for (const [child, parent] of parents) if (parent === tree[i]) tree.push(child);
  return tree;
}

export async function measureInstalledBin(samples: number, idleMs: number): Promise<InstalledFigures> {
  const work = await mkdtemp(path.join(tmpdir(), "bench-installed-"));
  try {
    const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", work], {
      cwd: root,
      maxBuffer: 16 * 2 ** 20,
    });
    const packed = JSON.parse(stdout)[0] as { filename: string; files: unknown[] };
    const tarball = path.join(work, packed.filename);
    const project = path.join(work, "app");
    await mkdir(project);
    await writeFile(path.join(project, "package.json"), JSON.stringify({ name: "app", private: true }));
    await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", tarball], {
      cwd: project,
    });
    const bin = path.join(project, "node_modules", ".bin", "agent-platform-mock");
    const start = async () => {
      const port = await freePort();
      return startChild({
        name: "installed bin",
        command: bin,
        args: ["--port", String(port), "--log-format", "off"],
        url: `http://127.0.0.1:${port}`,
        readyPath: "/__mock/health",
      });
    };
    const { wall: starts, cpu: startCpu } = await timeStart(start, samples);
    const idle = await start();
    await new Promise((resolve) => setTimeout(resolve, idleMs));
    const idleRss = rssOf(idle.process.pid) ?? Number.NaN;
    const processes = (await processTree(idle.process.pid!)).length;
    await idle.stop();
    return {
      tarballBytes: (await stat(tarball)).size,
      tarballFiles: packed.files.length,
      packages: (await installedPackages(project)).length,
      starts,
      startCpu,
      idleRss,
      idleMs,
      processes,
    };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

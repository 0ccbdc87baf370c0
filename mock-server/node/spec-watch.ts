/**
 * npm start -- --watch: a change under spec/ regenerates generated/ (`npm run generate`, as a child
 * process) and reloads the running mock with it (spec-reload.ts), on the same port, keeping the
 * state that still fits. A change the generator refuses is not loaded: the mock goes on serving the
 * previous spec and the console says why.
 *
 * Editors save in bursts (a temporary file, a rename, a chmod): changes are gathered until the spec
 * has been quiet for DEBOUNCE_MS. One regeneration runs at a time; changes made during a run queue
 * exactly one more, which starts after it and covers them all.
 */
import { execFile, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { KIT_NAME } from "../core/defaults.js";
import type { Mock } from "../mock/mock.js";
import { watchDirectoryTree } from "./directory-watch.js";
import { generatedFingerprint, reloadSpec } from "./spec-reload.js";
import { changedFiles, generatorReason, notLoadedBlock, reloadedBlock, unchangedBlock } from "./spec-watch-report.js";

const DEBOUNCE_MS = 250;
const GENERATE_TIMEOUT_MS = 180_000;
/** Spec sources; editors' swap and backup files (.swp, ~, vim's 4913) are not. */
const SPEC_FILE = /\.(ya?ml|json)$/;

/**
 * The kit's repository this code runs from: the nearest directory above it holding spec/ and the
 * kit's package.json. None when the mock was installed from the npm package (no spec/ to watch).
 */
export function findKitRoot(from: string = fileURLToPath(import.meta.url)): string | undefined {
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "spec")) && isKitPackage(join(dir, "package.json"))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

function isKitPackage(file: string): boolean {
  try {
    return (JSON.parse(readFileSync(file, "utf8")) as { name?: unknown }).name === KIT_NAME;
  } catch {
    return false;
  }
}

export interface SpecWatchOptions {
  /** The kit's repository (findKitRoot). */
  root: string;
  /** The mock that serves the spec: it gets each regenerated one (Mock.installSpec). */
  mock: Pick<Mock, "contract" | "installSpec" | "services">;
  /** One block per change, several lines. */
  log: (block: string) => void;
  /** Whether the running code is the compiled tree (dist/), which reads its own copy of generated/. */
  compiled?: boolean;
}

export interface SpecWatch {
  /** Stops watching; a regeneration under way is stopped too. */
  close(): void;
}

interface Run {
  ok: boolean;
  output: string;
}

function runIn(root: string, command: string, args: string[], running: Set<ChildProcess>): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(
      command,
      args,
      { cwd: root, timeout: GENERATE_TIMEOUT_MS, maxBuffer: 16 * 2 ** 20 },
      (error, stdout, stderr) => {
        running.delete(child);
        resolve({ ok: !error, output: `${stderr}\n${stdout}${error && !stderr && !stdout ? error.message : ""}` });
      },
    );
    running.add(child);
  });
}

export function watchSpec({ root, mock, log, compiled = isCompiled(root) }: SpecWatchOptions): SpecWatch {
  const specDir = join(root, "spec");
  const children = new Set<ChildProcess>();
  let changed = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let closed = false;
  // What the running mock loaded at start; "" when unreadable, so the first regeneration reloads.
  let fingerprint: Promise<string> = generatedFingerprint().catch(() => "");

  async function regenerateAndReload(files: string): Promise<void> {
    const started = performance.now();
    const generated = await runIn(root, "npm", ["run", "generate"], children);
    if (closed) return;
    // Paths in the generator's message, relative to the repository as the spec author reads them.
    const reason = (output: string) => generatorReason(output).replaceAll(root + sep, "");
    if (!generated.ok) return log(notLoadedBlock(files, "npm run generate failed", reason(generated.output)));
    if (compiled && existsSync(join(root, "scripts", "build.mjs"))) {
      const copied = await runIn(root, process.execPath, ["scripts/build.mjs", "--generated"], children);
      if (closed) return;
      if (!copied.ok) return log(notLoadedBlock(files, "copying generated/ into dist/ failed", reason(copied.output)));
    }
    const generateMs = performance.now() - started;
    const now = await generatedFingerprint();
    if (now === (await fingerprint)) return log(unchangedBlock(files, generateMs));
    const reloadStarted = performance.now();
    try {
      const report = await reloadSpec(mock);
      fingerprint = Promise.resolve(now);
      log(reloadedBlock(files, generateMs, performance.now() - reloadStarted, report));
    } catch (error) {
      log(notLoadedBlock(files, "the mock cannot use the regenerated spec", (error as Error).message));
    }
  }

  /** Waits for the spec to be quiet, then regenerates; while a run is under way the next one waits for it. */
  function schedule(): void {
    clearTimeout(timer);
    timer = setTimeout(() => void drain(), DEBOUNCE_MS);
  }

  async function drain(): Promise<void> {
    if (running || closed || changed.size === 0) return;
    running = true;
    const files = changedFiles([...changed]);
    changed = new Set();
    try {
      await regenerateAndReload(files);
    } catch (error) {
      log(notLoadedBlock(files, "the reload failed", (error as Error)?.stack ?? String(error)));
    }
    running = false;
    // Changes made during the run: one more, with all of them.
    if (changed.size > 0) schedule();
  }

  const watcher = watchDirectoryTree(specDir, (file) => {
    if (!SPEC_FILE.test(file)) return;
    changed.add(file);
    schedule();
  });

  return {
    close() {
      closed = true;
      clearTimeout(timer);
      watcher.close();
      for (const child of children) child.kill();
    },
  };
}

/** The compiled tree runs from dist/ inside the repository. */
function isCompiled(root: string): boolean {
  return relative(root, fileURLToPath(import.meta.url)).split(sep)[0] === "dist";
}

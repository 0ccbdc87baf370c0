/**
 * `npm run bench -- --against REV`: another revision of the kit, built in a temporary git worktree
 * (this checkout's node_modules linked in), so a part can measure it beside the working tree in one
 * run, interleaved, and print each figure as now / REV. The worktree is removed when the run ends.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { root } from "./children.js";

const run = promisify(execFile);

export interface Revision {
  /** The name given (`main`, `HEAD~1`, a hash), as the figures are labelled. */
  name: string;
  /** The commit it named when the run started. */
  commit: string;
  /** The worktree's root, built: `dist/mock-server/main.js` runs that revision's mock. */
  root: string;
  remove(): Promise<void>;
}

/** Checks out and builds `rev` beside this checkout; throws with git's or the build's message. */
export async function prepareRevision(rev: string, log: (line: string) => void): Promise<Revision> {
  const commit = (await run("git", ["rev-parse", "--verify", `${rev}^{commit}`], { cwd: root })).stdout.trim();
  const dir = path.join(mkdtempSync(path.join(tmpdir(), "bench-against-")), "kit");
  await run("git", ["worktree", "add", "--detach", dir, commit], { cwd: root });
  const remove = async () => {
    await run("git", ["worktree", "remove", "--force", dir], { cwd: root }).catch(() => undefined);
  };
  try {
    symlinkSync(path.join(root, "node_modules"), path.join(dir, "node_modules"), "dir");
    log(`building ${rev} (${commit.slice(0, 10)}) in ${dir}...`);
    await run(process.execPath, ["scripts/build.mjs"], { cwd: dir, maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    await remove();
    throw error;
  }
  return { name: rev, commit, root: dir, remove };
}

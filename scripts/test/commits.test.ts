/**
 * Commit subjects of at most 72 characters, from the redesign on (issue 23), so `git log --oneline`
 * reads. Older subjects are history and stay as they are.
 */
import { execFileSync } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/** The first commit held to the rule: "Add Biome for lint and format, configured in biome.json". */
const SINCE = "1f7029e43ce8cde66318171e194a5f5deff3014e";
const MAX = 72;

const git = (...args: string[]) => execFileSync("git", args, { cwd: ROOT, encoding: "utf8" });

function hasCommit(sha: string): boolean {
  try {
    git("cat-file", "-e", `${sha}^{commit}`);
    return true;
  } catch {
    return false;
  }
}

describe("commit subjects", () => {
  const available = hasCommit(SINCE);
  // A shallow clone (CI with depth 1) lacks the history: said out loud rather than passed silently.
  if (!available) console.warn(`commit subjects not checked: ${SINCE} is not in this clone's history (shallow clone)`);

  it.runIf(available)(`are at most ${MAX} characters since the redesign`, () => {
    const subjects = git("log", "--format=%h %s", `${SINCE}^..HEAD`).trim().split("\n");
    expect(subjects.length).toBeGreaterThan(0);
    const long = subjects.filter((line) => line.length - line.indexOf(" ") - 1 > MAX);
    expect(long).toEqual([]);
  });
});

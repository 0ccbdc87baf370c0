/**
 * `npm run bench -- --against REV`: another revision of the kit, built in a temporary git worktree
 * (this checkout's node_modules linked in; removed when the run ends), and the runner that measures
 * the parts (against-parts.ts) on this tree and on it in one run, interleaved, then prints each figure
 * as now / REV (figures.ts).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { root } from "./children.js";
import { compareFigures, flattenFigures, formatBaseline, formatFigure, formatSame, type RatioTo } from "./figures.js";

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

type Log = (line: string) => void;

/**
 * A part of the bench as `--against` runs it. `measure` runs the part on the mock of the kit at `kit`
 * (this checkout's root or REV's worktree), answering its figures as the part returns them (any JSON;
 * figures.ts flattens them). `baseline` measures what does not change with the revision (a bare
 * server, Prism, a gateway) for both sides at once: called each round, it answers undefined in the
 * rounds it skips. `ratios` names the baseline figures a figure is also shown against.
 */
export interface AgainstPart {
  title: string;
  measure?(kit: string, log: Log): Promise<unknown>;
  baseline?(round: number, log: Log): Promise<unknown> | undefined;
  ratios?(figure: string): RatioTo[];
}

/** Every round's figures of a part, as measured (what --json keeps). */
export interface PartRounds {
  now: unknown[];
  then: unknown[];
  baseline: unknown[];
  /** Why the part stopped (REV may predate it): its rounds so far are kept. */
  failed?: string;
}

/**
 * Runs each part on this tree and on REV in rounds, A B then B A, each part's processes fresh for each
 * side, so that a drift in the machine's load falls on both: a part's figures on one busy two-core
 * machine move by up to ±25 % from run to run, more than most changes. The parts take turns within a
 * round; a part that fails (on REV, say, that has no such feature) is reported and left out of the
 * later rounds, the others go on.
 */
export async function measureAgainst(
  parts: Record<string, AgainstPart>,
  revision: Revision,
  rounds: number,
  log: Log,
): Promise<Record<string, PartRounds>> {
  const record: Record<string, PartRounds> = {};
  for (const name of Object.keys(parts)) record[name] = { now: [], then: [], baseline: [] };
  for (let round = 0; round < rounds; round++)
    for (const [name, part] of Object.entries(parts)) {
      const saved = record[name];
      if (saved.failed) continue;
      const of = `round ${round + 1}/${rounds}`;
      const sides = [
        { side: "now", kit: root, label: "this tree" },
        { side: "then", kit: revision.root, label: revision.name },
      ] as const;
      try {
        const baseline = part.baseline?.(round, prefixed(log, "baseline"));
        if (baseline) {
          log(`${part.title}, ${of}: baseline...`);
          saved.baseline.push(await baseline);
        }
        if (!part.measure) continue;
        for (const { side, kit, label } of round % 2 ? [...sides].reverse() : sides) {
          log(`${part.title}, ${of}: ${label}...`);
          saved[side].push(await part.measure(kit, prefixed(log, label)));
        }
      } catch (error) {
        saved.failed = `${of}: ${(error as Error).message.split("\n")[0]}`;
        log(`${part.title}: failed in ${saved.failed}; left out of the later rounds`);
      }
    }
  return record;
}

const prefixed =
  (log: Log, label: string): Log =>
  (line) =>
    log(`  [${label}]${line}`);

/** The lines that end an --against run: per part, its baselines, then each figure as now / REV. */
export function reportAgainst(
  parts: Record<string, AgainstPart>,
  record: Record<string, PartRounds>,
  rev: string,
): string[] {
  const lines: string[] = [];
  for (const [name, part] of Object.entries(parts)) {
    const rounds = record[name];
    if (!rounds) continue;
    lines.push("", `${part.title} (${rounds.now.length} / ${rounds.then.length} round(s) as now / ${rev})`);
    if (rounds.failed) lines.push(`  failed in ${rounds.failed}`);
    const baseline = rounds.baseline.map((figures) => flattenFigures(figures));
    for (const figure of [...new Set(baseline.flatMap((f) => Object.keys(f)))])
      lines.push(
        `  baseline: ${formatBaseline(
          figure,
          baseline.flatMap((f) => (figure in f ? [f[figure]] : [])),
        )}`,
      );
    const flat = (side: unknown[]) => side.map((figures) => flattenFigures(figures));
    const { rows, same } = compareFigures(flat(rounds.now), flat(rounds.then), baseline, part.ratios);
    for (const row of rows) lines.push(`  ${formatFigure(row, rev)}`);
    if (same.length) lines.push(`  ${formatSame(same)}`);
  }
  return lines;
}

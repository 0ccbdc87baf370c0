/**
 * `npm run check` on a throwaway copy, its commands in two lanes. package.json's check script is a
 * chain, `a && b && ...`, one command at a time: on a copy most of its time is the unit tests, one
 * vitest run, while the type-check, the lint and the listing before them wait. Here the unit tests
 * start at once in a lane of their own, and the other commands run in order in a second lane (after
 * what the test needs first, the build). Each lane stops at its first failure, as `&&` does, and the
 * lanes' results read as the chain's: exit 0 when every command exits 0, else the code of the first
 * failure in the script's order, and the output of the commands up to it, in that order.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Ran, ThrowawayRepo } from "./throwaway-repo.js";

/** The check script's commands, in order; refused when anything but `&&` joins them. */
export async function checkCommands(dir: string): Promise<string[]> {
  const pkg = JSON.parse(await readFile(path.join(dir, "package.json"), "utf8")) as { scripts: Record<string, string> };
  const script = pkg.scripts.check ?? "";
  const commands = script.split(" && ").map((command) => command.trim());
  // Splitting is what the chain does only when the commands are plain: no other operator, no grouping.
  const plain = commands.every((command) => command && !/[;&|<>`$(){}\n]/.test(command));
  if (!plain) throw new Error(`package.json's check script is not a plain "a && b" chain: ${script}`);
  return commands;
}

/** Whether a command of the check is its unit tests. */
const isUnitTests = (command: string) => /^vitest\s/.test(command);

export interface CheckLanes {
  /** The check, as its chain would have ended. */
  result: Promise<Ran>;
}

/**
 * Starts the check in `repo`: the unit tests at once; `first` (the build), then the other commands,
 * in the second lane. Resolves when `first` has run, with its result and the check still running.
 */
export async function startCheckInLanes(
  repo: ThrowawayRepo,
  first: () => Promise<Ran>,
  unitTestsTimeoutMs = 540_000,
): Promise<{ first: Ran; check: CheckLanes }> {
  const commands = await checkCommands(repo.dir);
  const ran: (Ran | undefined)[] = commands.map(() => undefined);
  // `npm exec -c` runs a command line as `npm run` runs a script: a shell, the copy's bins on PATH.
  const runCommand = (i: number, timeoutMs?: number) =>
    repo.run("npm", ["exec", "-c", commands[i]!], timeoutMs).then((result) => (ran[i] = result));
  const lane = async (indexes: number[], timeoutMs?: number) => {
    for (const i of indexes) if ((await runCommand(i, timeoutMs)).code !== 0) return;
  };
  const indexes = commands.map((_, i) => i);
  const unitLane = lane(
    indexes.filter((i) => isUnitTests(commands[i]!)),
    unitTestsTimeoutMs,
  );
  const firstRan = await first();
  const otherLane = lane(indexes.filter((i) => !isUnitTests(commands[i]!)));
  const result = Promise.all([unitLane, otherLane]).then(() => asChain(ran));
  return { first: firstRan, check: { result } };
}

/** The commands' results as the chain would have given them: up to the first failure, in order. */
function asChain(ran: (Ran | undefined)[]): Ran {
  const chain: Ran = { code: 0, stdout: "", stderr: "" };
  for (const result of ran) {
    // A command not run: one before it in its lane failed, and that failure comes first in the script.
    if (!result) break;
    chain.stdout += result.stdout;
    chain.stderr += result.stderr;
    if (result.code !== 0) {
      chain.code = result.code;
      break;
    }
  }
  return chain;
}

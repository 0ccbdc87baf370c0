/**
 * `npm start` runs the mock as npm -> sh -c "<script>" -> node. Signalling npm's pid alone does not
 * reach the mock: on SIGTERM npm passes the signal to the shell only, which dies and leaves node
 * re-parented; on SIGKILL nothing is passed on and the shell stays, waiting. Either way the mock
 * would keep its port. So under npm it watches its parent and grandparent (npm itself, or the
 * user's shell when the script shell exec'd node, as bash does) and stops once either is gone or it
 * has been re-parented. (SIGINT to npm's pid alone is held by the shell, which waits for node: it
 * reaches nothing, npm included. Ctrl-C signals the whole process group, node too.)
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";

const POLL_MS = 500;

/** The parent's parent: from /proc on Linux, from ps elsewhere on POSIX; undefined when neither answers. */
function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces and parentheses) start after the last ')'.
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    /* no /proc: ask ps */
  }
  if (process.platform === "win32") return undefined;
  try {
    const ppid = Number(
      execFileSync("ps", ["-o", "ppid=", "-p", String(pid)], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      }).trim(),
    );
    return ppid > 0 ? ppid : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, it just is not ours to signal.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Calls `gone` once when the process that launched this one goes away. Only under npm
 * (`npm_lifecycle_event` set): run directly, a mock outliving its parent may be wanted (`nohup`, `&`).
 * The interval is unref'd, so it never keeps the process alive by itself.
 */
export function watchLauncher(
  gone: (why: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): (() => void) | undefined {
  if (!env.npm_lifecycle_event) return undefined;
  const parent = process.ppid;
  const grandparent = parentOf(parent);
  // With /proc the chain itself is read again (cheap): a SIGKILLed npm stays a zombie, alive to
  // kill(pid, 0), until its own parent reaps it, but the shell below it is re-parented at once.
  // Without /proc (macOS) reading it means running ps, so existence is asked instead.
  const procfs = grandparent !== undefined && existsSync(`/proc/${parent}/stat`);
  const check = (): string | undefined => {
    // Windows never re-parents (process.ppid stays): there the parent's existence is asked.
    if (process.ppid !== parent || (!procfs && !alive(parent))) return `parent process ${parent} gone`;
    if (grandparent === undefined || grandparent <= 1) return undefined;
    if (procfs ? parentOf(parent) !== grandparent : !alive(grandparent)) return `launcher process ${grandparent} gone`;
    return undefined;
  };
  const timer = setInterval(() => {
    const why = check();
    if (why === undefined) return;
    clearInterval(timer);
    gone(why);
  }, POLL_MS);
  timer.unref();
  return () => clearInterval(timer);
}

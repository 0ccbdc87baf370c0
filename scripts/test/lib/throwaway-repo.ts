/**
 * A throwaway copy of this repository for tests that change spec/ or the sources and run the kit's
 * own commands there (npm run generate, tsc, the scaffold, the build): the files git would commit
 * (tracked and new, not ignored) copied into a temporary folder, made a git repository of their own
 * (staged, not committed), node_modules linked in. Nothing the copy does touches the repository.
 */
import { execFile, execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

export interface ThrowawayRepo {
  dir: string;
  /** Runs a program in the copy (`npm`, `npx`, `node`): never rejects, the exit code says. */
  run(program: string, args: string[], timeoutMs?: number): Promise<Ran>;
  remove(): Promise<void>;
}

/** The environment without npm's, vitest's and the mock's own variables: the copy's commands start clean. */
export function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env))
    if (!/^(npm_|INIT_CWD$|NODE_OPTIONS$|VITEST|MOCK_|PORT$|HOST$|BASE_URL$|NODE_ENV$|TEST$)/.test(name))
      env[name] = value;
  return env;
}

export async function throwawayRepo(prefix: string): Promise<ThrowawayRepo> {
  const dir = await mkdtemp(path.join(tmpdir(), `${prefix}-`));
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: ROOT,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  })
    .split("\0")
    // A file deleted in the working tree is still listed as tracked: the copy is of the tree as it is.
    .filter((f) => f && existsSync(path.join(ROOT, f)));
  const folders = new Set(files.map((f) => path.dirname(f)));
  for (const folder of folders) await mkdir(path.join(dir, folder), { recursive: true });
  await Promise.all(files.map((f) => copyFile(path.join(ROOT, f), path.join(dir, f))));
  // A repository of its own, the files staged: what reads git (biome's ignore file, the layers test) reads the copy.
  execFileSync("git", ["init", "-q"], { cwd: dir });
  execFileSync("git", ["add", "-A"], { cwd: dir });
  await symlink(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"), "dir");
  const env = cleanEnv();
  return {
    dir,
    run: (program, args, timeoutMs = 300_000) =>
      new Promise((resolve) => {
        execFile(
          program,
          args,
          { cwd: dir, env, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 },
          (error, stdout, stderr) => {
            const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
            resolve({ code, stdout, stderr });
          },
        );
      }),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

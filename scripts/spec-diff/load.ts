/**
 * The two documents spec:diff compares, always bundled the way `npm run generate` bundles them
 * (scripts/generate.ts `bundle`): the working tree's spec/ as it is now (generated/ may be stale),
 * spec/ at a git ref (extracted with `git archive` into a temporary folder), or a bundled JSON file.
 * Every failure a user can cause (bad ref, no spec there, missing file) is a UsageError: exit 2.
 */
import { execFile } from "node:child_process";
import { access, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { bundle } from "../generate.js";
import { isObj, type Obj } from "./view.js";

const run = promisify(execFile);

export class UsageError extends Error {}

async function git(dir: string, args: string[]): Promise<string | undefined> {
  try {
    return (await run("git", args, { cwd: dir, maxBuffer: 64 * 1024 * 1024 })).stdout.trim();
  } catch {
    return undefined;
  }
}

function asDocument(value: unknown, from: string): Obj {
  if (!isObj(value) || typeof value.openapi !== "string") throw new UsageError(`${from} is not an OpenAPI document`);
  return value;
}

/** A bundled document written earlier (e.g. generated/openapi.json). */
export async function loadFile(file: string): Promise<Obj> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    throw new UsageError(`cannot read ${file}`);
  }
  try {
    return asDocument(JSON.parse(text), file);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`${file} is not JSON`);
  }
}

async function bundleIn(dir: string, spec: string): Promise<Obj> {
  const work = await mkdtemp(path.join(tmpdir(), "spec-diff-bundle-"));
  try {
    return asDocument(await bundle(spec, work, dir), spec);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** `spec` (e.g. spec/openapi.yaml) as it is in `dir` now. */
export async function bundleWorkingTree(dir: string, spec: string): Promise<Obj> {
  try {
    await access(path.join(dir, spec));
  } catch {
    throw new UsageError(`${spec} not found in ${dir}`);
  }
  return bundleIn(dir, spec);
}

export interface GitSpec {
  ref: string;
  commit: string;
  /** Where `dir` sits inside the repository ("" at its top). */
  prefix: string;
}

/** Checks, before any bundling, that `ref` names a commit of the repository holding `dir` and that it has `spec`. */
export async function findSpecAtRef(dir: string, ref: string, spec: string): Promise<GitSpec> {
  if (ref.startsWith("-")) throw new UsageError(`'${ref}' is not a git ref`);
  const prefix = await git(dir, ["rev-parse", "--show-prefix"]);
  if (prefix === undefined) throw new UsageError(`${dir} is not in a git repository`);
  const commit = await git(dir, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]);
  if (!commit) {
    const shallow = (await git(dir, ["rev-parse", "--is-shallow-repository"])) === "true";
    throw new UsageError(
      `'${ref}' is not a commit of this repository${shallow ? " (a shallow clone: fetch more history)" : ""}`,
    );
  }
  if ((await git(dir, ["cat-file", "-e", `${commit}:${path.posix.join(prefix, spec)}`])) === undefined) {
    throw new UsageError(`${ref} has no ${spec}`);
  }
  return { ref, commit, prefix };
}

/** `spec` as committed at `at.commit`, extracted into a temporary folder and bundled there. */
export async function bundleAtRef(dir: string, at: GitSpec, spec: string): Promise<Obj> {
  const tmp = await mkdtemp(path.join(tmpdir(), "spec-diff-ref-"));
  try {
    // spec/ carries redocly.yaml, which the bundler reads; the spec's own folder if it is elsewhere.
    const folders = [...new Set(["spec", path.posix.dirname(spec)])].map((p) => path.posix.join(at.prefix, p));
    const tar = path.join(tmp, "spec.tar");
    await run("git", ["archive", "--format=tar", "-o", tar, at.commit, "--", ...folders], { cwd: dir });
    await run("tar", ["-xf", tar, "-C", tmp]);
    return await bundleIn(path.join(tmp, at.prefix), spec);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

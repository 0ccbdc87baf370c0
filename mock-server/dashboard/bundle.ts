/**
 * The dashboard's script for /__mock/ui: page.ts and what it imports (preact, htm, the views) as one
 * browser module. The build bundles it into dist (scripts/build.mjs, DASHBOARD_BUNDLE) beside this
 * module once compiled, and that copy is read when it is there (running from dist/: npm start, the
 * package). Running from the sources (tsx, the tests) it is bundled here on first use, with esbuild, a
 * dev dependency, so an edit to a view shows on the next start without a build.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Where the build writes the bundle, relative to this module (the same path in dist/). */
export const BUNDLE_FILE = "assets/dashboard.js";

const built = fileURLToPath(new URL(`./${BUNDLE_FILE}`, import.meta.url));
// Only ever bundled from the sources (dist/ has the built file): page.ts is beside this module there.
const entry = fileURLToPath(new URL("./page.ts", import.meta.url));

let bundle: Promise<string> | undefined;

/** The bundle's text, read or made once per process. */
export function dashboardBundle(): Promise<string> {
  bundle ??= existsSync(built) ? Promise.resolve(readFileSync(built, "utf8")) : bundleSources();
  return bundle;
}

async function bundleSources(): Promise<string> {
  let esbuild: typeof import("esbuild");
  try {
    esbuild = await import("esbuild");
  } catch {
    throw new Error(`the dashboard is not built (${BUNDLE_FILE} is missing) and esbuild is not installed to bundle it`);
  }
  const result = await esbuild.build(dashboardBuildOptions(entry));
  return result.outputFiles![0].text;
}

/** The one set of esbuild options, used here and by scripts/build.mjs (which writes the file instead). */
export function dashboardBuildOptions(entryPoint: string) {
  return {
    entryPoints: [entryPoint],
    bundle: true,
    format: "esm" as const,
    platform: "browser" as const,
    target: "es2022",
    minify: true,
    legalComments: "none" as const,
    write: false,
    logLevel: "silent" as const,
  };
}

/**
 * npm run conformance:dredd -- --base-url URL --api-key KEY [--via-prism]
 * Dredd 14 over the bundled spec, as a second opinion. Generated hooks add the key, fill path ids and
 * bodies from the target, normalise charset and skip the non-2xx transactions Dredd cannot drive.
 * --via-prism sends the same run through `prism proxy --errors`, which validates every exchange too.
 * Exit 0: no Dredd failure. 1: a transaction failed. 2: the run could not start.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { dreddBodySchemas } from "./body-schemas.js";
import { buildDreddFixtures } from "./fills.js";
import { hooksSource } from "./hooks-source.js";
import { startPrismProxy, type PrismProxy } from "./prism-proxy.js";

const require = createRequire(import.meta.url);
const specPath = fileURLToPath(new URL("../../generated/openapi.json", import.meta.url));

export interface DreddOptions {
  baseUrl: string;
  apiKey: string;
  viaPrism?: boolean;
  log?: (line: string) => void;
}

export interface DreddStats {
  tests: number;
  passes: number;
  failures: number;
  errors: number;
  skipped: number;
}

export interface DreddResult {
  code: number;
  stats?: DreddStats;
  /** Non-2xx transactions skipped by the hooks. */
  skippedNon2xx: number;
  reason?: string;
}

export async function runDredd(options: DreddOptions): Promise<DreddResult> {
  const log = options.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  let setup: Awaited<ReturnType<typeof buildDreddFixtures>>;
  try {
    setup = await buildDreddFixtures(baseUrl, options.apiKey);
  } catch (error) {
    return { code: 2, skippedNon2xx: 0, reason: `target unreachable or fixtures failed: ${(error as Error).message}` };
  }
  const dir = mkdtempSync(join(tmpdir(), "conformance-dredd-"));
  const statsFile = join(dir, "stats.json");
  const hookFile = join(dir, "hooks.cjs");
  writeFileSync(
    hookFile,
    hooksSource({ apiKey: setup.apiKey, fills: setup.fills, bodySchemas: dreddBodySchemas(), statsFile }),
  );
  let proxy: PrismProxy | undefined;
  try {
    if (options.viaPrism) {
      proxy = await startPrismProxy(baseUrl);
      log(`dredd: via prism proxy --errors at ${proxy.url}`);
    }
    const Dredd = require("dredd");
    const dredd = new Dredd({
      endpoint: proxy?.url ?? baseUrl,
      path: [specPath],
      hookfiles: [hookFile],
      loglevel: "error",
      reporter: ["dot"],
      color: false,
    });
    const stats: DreddStats = await new Promise((resolve, reject) =>
      dredd.run((error: Error | null, s: DreddStats) => (error ? reject(error) : resolve(s))),
    );
    const hookStats = JSON.parse(readFileSync(statsFile, "utf8")) as { skipped: number; ran: number };
    log(
      `dredd: ${stats.passes} passing, ${stats.failures} failing, ${stats.errors} errors; skipped ${hookStats.skipped} non-2xx transactions (Dredd cannot drive OAS 3 error responses)`,
    );
    for (const note of setup.notes) log(`dredd: ${note}`);
    return { code: stats.failures + stats.errors > 0 ? 1 : 0, stats, skippedNon2xx: hookStats.skipped };
  } catch (error) {
    return { code: 2, skippedNon2xx: 0, reason: (error as Error).message };
  } finally {
    await proxy?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({
    options: { "base-url": { type: "string" }, "api-key": { type: "string" }, "via-prism": { type: "boolean" } },
  });
  const baseUrl = values["base-url"] ?? process.env.CONFORMANCE_BASE_URL;
  const apiKey = values["api-key"] ?? process.env.CONFORMANCE_API_KEY;
  if (!baseUrl || !apiKey) {
    process.stderr.write(
      "conformance:dredd: cannot start: --base-url and --api-key (or CONFORMANCE_BASE_URL / CONFORMANCE_API_KEY) are required\n",
    );
    process.exit(2);
  }
  runDredd({ baseUrl, apiKey, viaPrism: values["via-prism"] }).then((r) => {
    if (r.reason) process.stderr.write(`conformance:dredd: cannot start: ${r.reason}\n`);
    process.exit(r.code);
  });
}

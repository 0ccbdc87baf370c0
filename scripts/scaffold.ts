/**
 * npm run scaffold -- OPERATION_ID: a hand-written handler for an operation of generated/openapi.json
 * that the generic layer serves, for when the generic answer is not enough. Writes, beside the other
 * handlers, mock-server/routes/<kebab-id>.ts (a typed handler that starts as the generic layer's
 * answer, for the author to fill in) and <kebab-id>.test.ts (its unit test, passing as written), and
 * registers the handler in mock-server/routes/index.ts; biome formats the three.
 *
 * Exit 0 when written; 2, with one line saying why, for no id, an id the spec does not have, one that
 * has a hand-written handler already, or a file of that name already there.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Contract } from "../mock-server/core/contract.js";
import { generatedSpec } from "../mock-server/core/spec.js";
import { handlers } from "../mock-server/routes/index.js";
import { registerHandlers } from "./scaffold/register.js";
import { rehearse } from "./scaffold/rehearse.js";
import { sampleRequest } from "./scaffold/sample-request.js";
import { handlerSource, type Scaffold, testSource } from "./scaffold/sources.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const ROUTES = "mock-server/routes";

export class UsageError extends Error {}

/** `getWidgetStats`, `get_widget_stats`, `widgets.getStats` -> `get-widget-stats`, `widgets-get-stats`. */
export function kebabOf(operationId: string): string {
  return operationId
    .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1-$2")
    .replace(/[^A-Za-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .toLowerCase();
}

/** `get-widget-stats` -> `getWidgetStatsHandlers` (an identifier, whatever the id). */
export function exportNameOf(file: string): string {
  const camel = file.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
  return `${/^[0-9]/.test(camel) ? "op" : ""}${camel}Handlers`;
}

export interface Scaffolded {
  /** The handler, its test, and routes/index.ts. */
  files: string[];
  /** The status the test expects: the generic layer's answer to its request. */
  expected: number;
  /** Whether the spec documents that status for the operation. */
  documented: boolean;
}

/** Writes the handler and its test for `operationId` and registers the handler. */
export async function scaffold(operationId: string, root = ROOT): Promise<Scaffolded> {
  const contract = new Contract(generatedSpec());
  const op = contract.operationsById.get(operationId);
  if (!op)
    throw new UsageError(
      `no operation "${operationId}" in generated/openapi.json (after editing spec/, run npm run generate)`,
    );
  if ((handlers as Record<string, unknown>)[operationId])
    throw new UsageError(`${operationId} already has a hand-written handler (mock-server/routes/index.ts)`);
  const file = kebabOf(operationId);
  const handlerFile = `${ROUTES}/${file}.ts`;
  const testFile = `${ROUTES}/${file}.test.ts`;
  for (const f of [handlerFile, testFile])
    if (existsSync(path.join(root, f))) throw new UsageError(`${f} is there already: move it away first`);
  const request = sampleRequest(contract, op);
  const exportName = exportNameOf(file);
  const document = contract.document as Record<string, any>;
  const s: Scaffold = {
    op,
    summary: document.paths[op.path][op.method].summary,
    file,
    exportName,
    request,
    ...(await rehearse(contract, op, request)),
  };
  const index = `${ROUTES}/index.ts`;
  writeFileSync(path.join(root, handlerFile), handlerSource(s));
  writeFileSync(path.join(root, testFile), testSource(s));
  const indexPath = path.join(root, index);
  writeFileSync(indexPath, registerHandlers(readFileSync(indexPath, "utf8"), exportName, file));
  const touched = [handlerFile, testFile, index];
  execFileSync(path.join(root, "node_modules/.bin/biome"), ["check", "--write", ...touched], {
    cwd: root,
    stdio: ["ignore", "ignore", "pipe"],
  });
  return { files: touched, expected: s.expected.status, documented: op.responses.has(s.expected.status) };
}

async function main(argv: string[]): Promise<number> {
  const ids = argv.filter((a) => a !== "--");
  if (ids.length !== 1 || !ids[0] || ids[0].startsWith("-")) {
    console.error("usage: npm run scaffold -- OPERATION_ID (an operation of generated/openapi.json without a handler)");
    return 2;
  }
  try {
    const { files, expected, documented } = await scaffold(ids[0]!);
    const [handlerFile, testFile, index] = files;
    console.log(`wrote ${handlerFile}: the handler, answering as the generic layer did until you fill it in`);
    console.log(`wrote ${testFile}: npx vitest run --config scripts/vitest.config.ts ${testFile}`);
    console.log(`registered it in ${index}`);
    if (!documented)
      console.log(
        `note: the generic layer answers ${expected}, which the spec does not document: the test fails until the handler answers as documented`,
      );
    return 0;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`scaffold: ${error.message}`);
    return 2;
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  process.exitCode = await main(process.argv.slice(2));

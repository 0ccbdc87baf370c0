/**
 * A step of `npm run check`, before its unit tests (so it is printed whatever they say): which
 * operations of spec/ have no hand-written handler, and how the generic layer serves them (each
 * collection with its id field; the answers drawn from the schema), so a spec author sees what a new
 * operation gets before writing any code. Information only: it never fails the check.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type Contract, defaultContract } from "../mock-server/core/contract.js";
import { describeGeneric, formatGenericSummary } from "../mock-server/generic/index.js";
import { handlers } from "../mock-server/routes/index.js";

const hasHandler = (operationId: string) => Object.hasOwn(handlers, operationId);

/** The lines to print for `contract`, `handled` saying which operations have a hand-written handler. */
export function servedGenericallyLines(contract: Contract, handled: (operationId: string) => boolean = hasHandler) {
  const summary = describeGeneric(contract, handled);
  const count = summary.schemaOperations.length + summary.collections.reduce((n, c) => n + c.operations.length, 0);
  if (count === 0) return ["served generically: none, every operation has a hand-written handler"];
  return [
    `served generically: ${count} of ${contract.operations.length} operations have no hand-written handler (mock-server/docs/generic-layer.md)`,
    ...formatGenericSummary(summary).map((line) => `  ${line}`),
  ];
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    for (const line of servedGenericallyLines(defaultContract())) console.log(line);
  } catch (error) {
    console.log(`served generically: could not be listed (${(error as Error).message})`);
  }
}

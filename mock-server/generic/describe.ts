/**
 * What the generic layer serves, said for people: the mock's start log and `npm run check` print it,
 * so a spec author sees which operations answer generically and how each collection is keyed.
 */
import type { Contract } from "../core/contract.js";
import { planOf } from "./plan.js";

export interface GenericSummary {
  collections: { name: string; idField: string; operations: string[] }[];
  schemaOperations: string[];
}

/** The operations of `contract` that no handler serves (`handled` says which have one), as the generic layer serves them. */
export function describeGeneric(contract: Contract, handled: (operationId: string) => boolean): GenericSummary {
  const plan = planOf(contract);
  const collections = plan.collections
    .map((c) => ({
      name: c.name,
      idField: c.idField,
      operations: c.operations.map((o) => o.operationId).filter((id) => !handled(id)),
    }))
    .filter((c) => c.operations.length > 0);
  const schemaOperations = contract.operations
    .map((op) => op.operationId)
    .filter((id) => !handled(id) && plan.decisions.get(id)?.kind !== "collection");
  return { collections, schemaOperations };
}

/** One line per collection, then one for the schema answers; none when everything has a handler. */
export function formatGenericSummary(summary: GenericSummary): string[] {
  const lines = summary.collections.map(
    (c) => `generic collection ${c.name} (id: ${c.idField}): ${c.operations.join(", ")}`,
  );
  if (summary.schemaOperations.length > 0)
    lines.push(`generic answers from the schema: ${summary.schemaOperations.join(", ")}`);
  return lines;
}

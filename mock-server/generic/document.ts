/**
 * What the generic layer reads of an operation straight from the document, beyond the Operation table
 * (core/operations.ts): its parameters with their schemas, and its responses as written (`default`,
 * `4XX`, media types other than JSON, a media `example`).
 */
import type { Contract } from "../core/contract.js";
import { responseMediaType } from "../core/operation-schemas.js";
import type { Operation } from "../core/operations.js";
import type { Schema } from "../core/sampling/schema.js";

/** The operation object of `op` in the contract's document. */
export function rawOperation(contract: Contract, op: Operation): Schema {
  const paths = (contract.document as { paths: Record<string, unknown> }).paths;
  const item = contract.deref<Schema>(paths[op.path]);
  return (item?.[op.method] ?? {}) as Schema;
}

interface Parameter {
  name: string;
  in: string;
  schema?: unknown;
}

/** The operation's parameters in `location` (path-level ones too), by name -> schema. */
export function parameterSchemas(
  contract: Contract,
  op: Operation,
  location: "query" | "path",
): Record<string, unknown> {
  const paths = (contract.document as { paths: Record<string, unknown> }).paths;
  const item = contract.deref<Schema>(paths[op.path]);
  const list = [...(item?.parameters ?? []), ...(item?.[op.method]?.parameters ?? [])].map((p: unknown) =>
    contract.deref<Parameter>(p),
  );
  return Object.fromEntries(list.filter((p) => p.in === location).map((p) => [p.name, p.schema ?? {}]));
}

/** The JSON media of a response object, as the core reads it (operation-schemas.ts: JSON first, then `+json`). */
export function jsonMedia(response: Schema | undefined): { type: string; media: Schema } | undefined {
  const content = (response?.content ?? {}) as Record<string, Schema>;
  const type = responseMediaType(content);
  return type ? { type, media: content[type] ?? {} } : undefined;
}

/**
 * The response documented for `status` as written: the exact code, else its class (`4XX`), else
 * `default`; with the key it is documented under.
 */
export function documentedResponse(
  contract: Contract,
  op: Operation,
  status: number,
): { key: string; response: Schema } | undefined {
  const responses = (rawOperation(contract, op).responses ?? {}) as Record<string, unknown>;
  for (const key of [String(status), `${String(status)[0]}XX`, `${String(status)[0]}xx`, "default"])
    if (key in responses) return { key, response: contract.deref<Schema>(responses[key]) };
  return undefined;
}

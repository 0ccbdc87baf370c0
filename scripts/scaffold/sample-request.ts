/**
 * A request an operation accepts, for the unit test the scaffold writes: path and query values as the
 * URL carries them (strings, which the operation's validator coerces as the pipeline does), and a JSON
 * body. The spec's own examples first, else values drawn from the schema (the generic layer's sampler,
 * seeded by the operation's id: scaffolding twice writes the same test, and a change's body is not the
 * create's); each checked by the operation's validators.
 */
import type { Contract } from "../../mock-server/core/contract.js";
import type { Operation } from "../../mock-server/core/operations.js";
import { hash32 } from "../../mock-server/core/random.js";
import { sampleValid } from "../../mock-server/generic/index.js";

export interface SampleRequest {
  path: Record<string, string>;
  /** The required query parameters only: the defaults of the others are the pipeline's to fill. */
  query: Record<string, string | string[]>;
  /** undefined: the operation takes no JSON body. */
  body: unknown;
}

type Node = Record<string, any>;

const REF_DATE = new Date("2026-01-01T00:00:00.000Z");

export function sampleRequest(contract: Contract, op: Operation): SampleRequest {
  const deref = (node: unknown) => contract.deref(node);
  const seed = hash32(op.operationId);
  const item = (contract.document as Node).paths[op.path] as Node;
  const declared = [...(item.parameters ?? []), ...(item[op.method].parameters ?? [])].map((p) => deref(p) as Node);
  const parameters = declared.filter((p) => p.in === "path" || (p.in === "query" && p.required));
  const documented = (p: Node) => firstExample(p, deref) ?? firstExample(deref(p.schema) as Node);
  const drawn = (p: Node) => sampleValid(p.schema, { deref, seed, refDate: REF_DATE }).value;
  const targetOf = (valueOf: (p: Node) => unknown) => {
    const target = { path: {} as Record<string, string>, query: {} as Record<string, string | string[]> };
    for (const p of parameters) {
      const value = valueOf(p);
      if (p.in === "path") target.path[p.name] = String(value);
      else target.query[p.name] = Array.isArray(value) ? value.map(String) : String(value);
    }
    return target;
  };
  // The validator coerces and fills in place: it is given a copy.
  const accepts = (target: ReturnType<typeof targetOf>) => op.validateParams(structuredClone(target));
  let target = targetOf((p) => documented(p) ?? drawn(p));
  if (!accepts(target)) target = targetOf(drawn);
  return { ...target, body: sampleBody(contract, op, deref, seed) };
}

function sampleBody(contract: Contract, op: Operation, deref: (node: unknown) => unknown, seed: number): unknown {
  if (op.bodyType !== "application/json") return undefined;
  const media = (contract.document as Node).paths[op.path][op.method].requestBody;
  const content = (deref(media) as Node).content["application/json"] as Node;
  const check = (value: unknown) => op.validateBody!(structuredClone(value));
  const example = firstExample(content, deref) ?? firstExample(deref(op.bodySchema) as Node);
  if (example !== undefined && check(example)) return example;
  return sampleValid(op.bodySchema, { deref, seed, refDate: REF_DATE, check }).value;
}

/** `example`, else the first of `examples` (a map of Example objects, or a schema's array). */
function firstExample(node: Node | undefined, deref: (node: unknown) => unknown = (n) => n): unknown {
  if (!node || typeof node !== "object") return undefined;
  if (node.example !== undefined) return node.example;
  const { examples } = node;
  if (Array.isArray(examples)) return examples[0];
  if (examples && typeof examples === "object") {
    const first = Object.values(examples)[0];
    return first === undefined ? undefined : (deref(first) as Node).value;
  }
  return undefined;
}

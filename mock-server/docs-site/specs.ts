/**
 * The specs as /docs shows them. Two changes, both for Swagger UI's "Try it out" against this mock and
 * neither in spec/: `servers` is the mock itself, and every /v1 operation gets a `Prefer` header
 * whose choices are the mock's controls for that operation (core/prefer.ts). Prefer is a feature of
 * the mock, not of the platform, so only this copy documents it.
 */
import type { Contract } from "../core/contract.js";
import type { Operation } from "../core/operations.js";

type Json = Record<string, any>;

export const PREFER_DELAY_MS = 1000;

const METHODS = ["get", "post", "put", "patch", "delete"];

/**
 * The server try-it calls: the directory above /docs/{spec}.json, which is wherever the mock is
 * mounted (`/` for npm start, `/mock/` under Express). A relative server URL is relative to the
 * spec's own URL (OpenAPI 4.8.5); assets/init.js spells it out so the server picker shows the address.
 */
const THIS_MOCK = [{ url: "..", description: "This mock (the origin and mount that serve these docs)" }];

/** The Prefer choices of one operation: each documented status, each named example, dynamic, delay. */
export function preferChoices(op: Operation): string[] {
  const choices: string[] = [];
  for (const [status, response] of op.responses) {
    choices.push(`code=${status}`);
    for (const name of Object.keys(response.examples)) {
      // Without code=, example= names an example of the success status.
      choices.push(status === op.successStatus ? `example=${name}` : `code=${status}, example=${name}`);
    }
  }
  choices.push("dynamic=true", `delay=${PREFER_DELAY_MS}`);
  return choices;
}

function preferParameter(op: Operation): Json {
  return {
    name: "Prefer",
    in: "header",
    required: false,
    description:
      "**Mock only** (not part of the platform's API). Forces the reply instead of the mock's own behaviour, and changes no state: " +
      "`code=NNN` answers with that documented status, `example=NAME` with that named example, " +
      "`dynamic=true` with a body generated from the schema, `delay=MS` waits first (at most 60 s). " +
      "Combine them with commas (`code=200, dynamic=true`). The reply carries `Preference-Applied`.",
    schema: { type: "string", enum: preferChoices(op) },
  };
}

/**
 * The API spec for /docs: a copy of the contract's document (the mock serves that one as it is), with
 * Prefer on every operation. The parameters a path item shares (`callId`) move into its operations: Swagger UI
 * resolves an operation's `$ref`s when it opens, but an operation opened by a deep link as the page
 * loads keeps its path item's `$ref` unresolved (shown as a nameless "any" field).
 */
export function apiDocsSpec(contract: Contract): Json {
  const copy = structuredClone(contract.document) as Json;
  const deref = (node: unknown) => contract.deref<Json>(node);
  for (const item of Object.values<Json>(copy.paths)) {
    const shared: Json[] = item.parameters ?? [];
    delete item.parameters;
    for (const method of METHODS) {
      if (!item[method]) continue;
      const own: Json[] = item[method].parameters ?? [];
      // An operation's own parameter overrides the path item's of the same name and location.
      const key = (p: Json) => `${deref(p).in}:${deref(p).name}`;
      const owned = new Set(own.map(key));
      item[method].parameters = [...shared.filter((p) => !owned.has(key(p))), ...own];
    }
  }
  for (const op of contract.operations) copy.paths[op.path][op.method].parameters.push(preferParameter(op));
  copy.servers = THIS_MOCK;
  return copy;
}

/** The control-plane spec for /docs/control. */
export function controlDocsSpec(spec: unknown): Json {
  return { ...(spec as Json), servers: THIS_MOCK };
}

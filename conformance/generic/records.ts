/**
 * The records the generic rules need: ids to fill path parameters with (a record the target lists, or
 * one the run creates), and records a rule creates for itself (deleted when the rule ends). Every record
 * the run creates on a foreign target goes into the ledger at once, with the DELETE that removes it (a
 * killed run's `cleanup` replays it), and out of it once deleted.
 */
import { createHash } from "node:crypto";
import type { OperationInfo } from "../../mock-server/core/exchange-rules/operation-table.js";
import { recordCreated, recordNotRemoved, recordRemoved } from "../fixtures/ledger.js";
import type { Fixtures } from "../fixtures/types.js";
import type { SuiteDocument } from "../lib/document.js";
import { send, type Exchange } from "../lib/http.js";
import { obj, type RuleContext } from "../lib/rule.js";
import { type Collection, collectionOfParameter } from "./collections.js";
import { walkList } from "./list-walk.js";
import {
  credentialFor,
  encodeBody,
  parameterValue,
  parametersOf,
  pathWith,
  requiredParts,
  validBodyValue,
  wireText,
  writePreference,
} from "./requests.js";
import { documentOf, prefixOf, valueOptions } from "./run-context.js";
import { propertiesOf } from "./schema-walk.js";
import { passes, seededUuid, type ValueOptions } from "./values.js";

/** Path values resolved for a request, or why they could not be. */
export interface PathValues {
  values: Record<string, string>;
  problem?: string;
}

/** Shared ids of the run, by collection path: one listed (or made) record each, asked once. */
const sharedByRun = new WeakMap<Fixtures, Map<string, Promise<string | undefined>>>();

/**
 * Every path parameter of `op` with a value: `given` ones as they are; one naming a collection's
 * records, the id of a record of that collection (listed, or created when the run may write); any
 * other, a valid value of its schema.
 */
export async function resolvePath(
  t: RuleContext,
  op: OperationInfo,
  given: Record<string, string> = {},
): Promise<PathValues> {
  const document = documentOf(t);
  const values: Record<string, string> = {};
  for (const param of parametersOf(document, op).filter((p) => p.in === "path")) {
    if (given[param.name] !== undefined) {
      values[param.name] = given[param.name];
      continue;
    }
    const collection = collectionOfParameter(document, op.path, param.name);
    if (collection) {
      const id = await sharedId(t, collection);
      if (id === undefined)
        return {
          values,
          problem: `no ${collection.kind} record to name in {${param.name}}: ${collection.list ? "the list shows none" : "nothing lists them"}${
            collection.create
              ? t.fixtures.readOnly
                ? " and a read-only run creates none"
                : ""
              : " and the document has no way to create one"
          }`,
        };
      values[param.name] = id;
      continue;
    }
    const value = parameterValue(document, param, valueOptions(t));
    if (value === undefined) return { values, problem: `no valid value for the path parameter ${param.name}` };
    values[param.name] = wireText(value);
  }
  return { values };
}

/** The id of a record of `collection` the run may read: the first one listed, else one the run creates (and deletes at its end). */
export function sharedId(t: RuleContext, collection: Collection): Promise<string | undefined> {
  let shared = sharedByRun.get(t.fixtures);
  if (!shared) sharedByRun.set(t.fixtures, (shared = new Map()));
  let id = shared.get(collection.path);
  if (!id) {
    id = findOrMake(t, collection);
    shared.set(collection.path, id);
  }
  return id;
}

async function findOrMake(t: RuleContext, collection: Collection): Promise<string | undefined> {
  if (collection.list) {
    const parents = await resolvePath(t, collection.list);
    if (!parents.problem) {
      const walk = await walkList(t, collection, parents.values, () => true, 1);
      const first = walk.items[0];
      const id =
        first && typeof first === "object" ? (first as Record<string, unknown>)[collection.idField] : undefined;
      if (id !== undefined && id !== null) return String(id);
    }
  }
  if (t.fixtures.readOnly || !collection.create) return undefined;
  const made = await createRecord(t, collection, { salt: 7_919, ruleOwned: false });
  return "id" in made ? made.id : undefined;
}

export interface Created {
  id: string;
  /** The body sent (as a value). */
  sent: unknown;
  exchange: Exchange;
  /** The path values of the collection's parents. */
  parents: Record<string, string>;
}

/** A value for the id field of a body, unique to the run: the ids of two runs never meet. */
function uniqueId(document: SuiteDocument, pointer: string, marker: string, seed: number): unknown {
  const candidates = [
    seededUuid(marker, seed),
    1_000_000 +
      (Number.parseInt(createHash("sha256").update(`${marker}:${seed}`).digest("hex").slice(0, 8), 16) % 1_000_000_000),
    `${marker}-${seed}`,
  ];
  return candidates.find((c) => passes(document.doc, pointer, "documented", c));
}

/** The body of a create: valid, with the id field (when the client sets it) unique to the run. */
export function createBody(
  t: RuleContext,
  collection: Collection,
  options: ValueOptions,
): { value?: unknown; problem?: string } {
  const document = documentOf(t);
  const op = collection.create!;
  const body = validBodyValue(document, op, options, writePreference(t.fixtures.isMock, op.method));
  if (body.problem || !body.value || typeof body.value !== "object" || Array.isArray(body.value)) return body;
  const properties = op.requestSchemaPointer ? propertiesOf(document.doc, op.requestSchemaPointer) : {};
  const idProperty = properties[collection.idField];
  if (idProperty && idProperty.schema.readOnly !== true && collection.idField in (body.value as object)) {
    const unique = uniqueId(document, idProperty.pointer, t.fixtures.runId, options.seed);
    const value = { ...(body.value as Record<string, unknown>), [collection.idField]: unique };
    if (unique !== undefined && passes(document.doc, op.requestSchemaPointer!, "documented", value)) return { value };
  }
  return body;
}

/** The id a create answered: the id field of its body, else the last segment of its Location header. */
export function idOfAnswer(collection: Collection, exchange: Exchange): string | undefined {
  const body = obj(exchange);
  const fromBody = body[collection.idField];
  if (fromBody !== undefined && fromBody !== null && typeof fromBody !== "object") return String(fromBody);
  const location = exchange.headers.get("location");
  if (location) return decodeURIComponent(location.replace(/\/+$/, "").split("/").pop() ?? "") || undefined;
  return undefined;
}

/**
 * Creates a record of `collection` through its create operation, judged like every answer. A record
 * made goes into the ledger (foreign targets) and is deleted when the rule ends (`ruleOwned`) or when
 * the run ends. The id and what was sent, or why there is none.
 */
export async function createRecord(
  t: RuleContext,
  collection: Collection,
  how: { salt: number; ruleOwned: boolean; body?: unknown },
): Promise<Created | { problem: string; exchange?: Exchange }> {
  const document = documentOf(t);
  const op = collection.create!;
  const parents = await resolvePath(t, op);
  if (parents.problem) return { problem: parents.problem };
  const options = valueOptions(t, how.salt);
  const parts = requiredParts(document, op, options);
  if (parts.problem) return { problem: parts.problem };
  const body = how.body !== undefined ? { value: how.body } : createBody(t, collection, options);
  if (body.problem) return { problem: body.problem };
  const encoded = encodeBody(op, body.value);
  const exchange = await t.call(op.operationId, {
    method: op.method,
    path: pathWith(prefixOf(t), op.path, parents.values),
    query: parts.query,
    ...encoded,
    headers: { ...parts.headers, ...encoded.headers },
    ...credentialFor(document, op),
  });
  if (exchange.status < 200 || exchange.status >= 300)
    return { problem: `the create answered ${exchange.status}`, exchange };
  const id = idOfAnswer(collection, exchange);
  if (id === undefined)
    return { problem: `the create answered no ${collection.idField} (nor a Location header)`, exchange };
  trackCreated(t, collection, id, parents.values, how.ruleOwned);
  return { id, sent: body.value, exchange, parents: parents.values };
}

/**
 * A record the run made (also one a request wrongly accepted): in the ledger at once, and deleted when
 * the rule ends (`ruleOwned`) or when the run does. Without a delete operation it stays, listed as left.
 */
export function trackCreated(
  t: RuleContext,
  collection: Collection,
  id: string,
  parents: Record<string, string>,
  ruleOwned: boolean,
): void {
  const document = documentOf(t);
  const remove = collection.remove;
  const path = remove ? pathWith(prefixOf(t), remove.path, { ...parents, [collection.idParam ?? ""]: id }) : undefined;
  const credential = remove ? credentialFor(document, remove).credential : undefined;
  recordCreated(
    t.fixtures,
    {
      kind: collection.kind,
      id,
      note: remove
        ? `created by ${t.rule.id}`
        : `created by ${t.rule.id}; the document has no way to delete a record of ${collection.path}`,
    },
    remove && path
      ? {
          operationId: remove.operationId,
          method: "DELETE",
          path,
          expect: {},
          removes: true,
          ...(credential ? { credential } : {}),
        }
      : undefined,
  );
  if (!remove || !path) return;
  const read = collection.read
    ? pathWith(prefixOf(t), collection.read.path, { ...parents, [collection.idParam ?? ""]: id })
    : undefined;
  const target = t.target;
  const deleteIt = async () => {
    const gone = await send(target, { method: "DELETE", path, credential }, { idempotent: true });
    if ((gone.status < 200 || gone.status >= 300) && gone.status !== 404) return [`DELETE answered ${gone.status}`];
    if (!read || !collection.read) return [];
    const again = await send(
      target,
      { method: "GET", path: read, ...credentialFor(document, collection.read) },
      { idempotent: true },
    );
    return again.status === 404 ? [] : [`still read back (${again.status}) after its DELETE`];
  };
  if (ruleOwned) {
    let left: string[] = [];
    t.willRestore({
      kind: collection.kind,
      id,
      fields: ["the whole record"],
      removes: true,
      restore: async () => void (left = await deleteIt()),
      verify: async () => left,
    });
    return;
  }
  const fixtures = t.fixtures;
  fixtures.undo.push(async () => {
    const why = await deleteIt().catch((error: Error) => [error.message]);
    if (why.length === 0) recordRemoved(fixtures, collection.kind, id, "deleted when the run ended");
    else recordNotRemoved(fixtures, collection.kind, id, why.join(", "));
  });
}

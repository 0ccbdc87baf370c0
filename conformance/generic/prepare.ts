/**
 * A valid request of any operation, ready to send: path ids from records (one of the rule's own where
 * the request changes or deletes a record, so nothing the run did not make is touched), required
 * parameters, a valid body with the record's id where the body carries it.
 */
import type { OperationInfo } from "../../mock-server/core/exchange-rules/operation-table.js";
import type { RequestSpec } from "../lib/http.js";
import type { RuleContext } from "../lib/rule.js";
import { type Collection, collectionOfParameter, type Role, roleOf } from "./collections.js";
import { type Created, createBody, createRecord, resolvePath, sharedId } from "./records.js";
import { documentOf, prefixOf, valueOptions } from "./run-context.js";
import {
  credentialFor,
  encodeBody,
  parametersOf,
  pathWith,
  requiredParts,
  validBodyValue,
  writePreference,
} from "./requests.js";
import { propertiesOf } from "./schema-walk.js";
import { passes } from "./values.js";

export interface Prepared {
  request: RequestSpec;
  /** The body as a value (before encoding). */
  body?: unknown;
  /** The record of the rule's own the request names, when it made one. */
  own?: Created;
  /** The collection whose record the request names last, if any. */
  collection?: Collection;
  /** The path values used. */
  path: Record<string, string>;
}

const CHANGES: Role[] = ["update", "replace", "remove", "bodyUpdate", "bodyReplace"];

/** The collection whose record the operation acts on: its role's, else the one its last path parameter names. */
export function targetCollection(t: RuleContext, op: OperationInfo): { collection?: Collection; role?: Role } {
  const document = documentOf(t);
  const role = roleOf(document, op.operationId);
  if (role) return { collection: role.collection, role: role.role };
  const params = parametersOf(document, op).filter((p) => p.in === "path");
  for (const param of params.reverse()) {
    const collection = collectionOfParameter(document, op.path, param.name);
    if (collection) return { collection };
  }
  return {};
}

/**
 * Whether a valid request of `op` changes a record it names: then it names a record of the rule's own.
 * A create names none (it makes one); a GET changes nothing.
 */
function changesRecord(op: OperationInfo, role: Role | undefined, collection: Collection | undefined): boolean {
  if (op.method === "GET" || role === "create" || role === "list" || !collection) return false;
  return role === undefined ? op.path.includes(`{${collection.idParam}}`) : CHANGES.includes(role);
}

/**
 * The valid request of `op`, or why the rule cannot make one (it then skips). `salt` varies the values;
 * `givenPath` fixes path values (an unknown id).
 */
export async function prepare(
  t: RuleContext,
  op: OperationInfo,
  how: { salt?: number; givenPath?: Record<string, string> } = {},
): Promise<Prepared | { problem: string }> {
  const document = documentOf(t);
  const { collection, role } = targetCollection(t, op);
  const given: Record<string, string> = { ...how.givenPath };
  let own: Created | undefined;
  if (collection?.idParam && given[collection.idParam] === undefined && changesRecord(op, role, collection)) {
    if (collection.create) {
      const made = await createRecord(t, collection, { salt: (how.salt ?? 0) + 101, ruleOwned: true });
      if ("problem" in made)
        return { problem: `could not create a ${collection.kind} record to act on: ${made.problem}` };
      own = made;
      Object.assign(given, made.parents, { [collection.idParam]: made.id });
    } else if (t.fixtures.isMock) {
      const id = await sharedId(t, collection);
      if (id === undefined) return { problem: `no ${collection.kind} record to act on` };
      given[collection.idParam] = id;
    } else {
      return {
        problem: `the document has no way to create a ${collection.kind} record, and the run changes no record it did not make`,
      };
    }
  }
  const path = await resolvePath(t, op, given);
  if (path.problem) return { problem: path.problem };
  const options = valueOptions(t, how.salt ?? 0);
  const parts = requiredParts(document, op, options);
  if (parts.problem) return { problem: parts.problem };
  // A create's body as the records module makes it: the id field (when the client sets it) unique to the run.
  const made =
    role === "create" && collection
      ? createBody(t, collection, options)
      : validBodyValue(document, op, options, writePreference(t.fixtures.isMock, op.method));
  if (made.problem) return { problem: made.problem };
  let body = made.value;
  // A body that carries the record's id (PUT /x, PATCH /x, a PUT of the whole record) names the record acted on.
  const id = collection?.idParam ? (given[collection.idParam] ?? path.values[collection.idParam]) : undefined;
  if (
    collection &&
    id !== undefined &&
    body &&
    typeof body === "object" &&
    !Array.isArray(body) &&
    op.requestSchemaPointer
  ) {
    const properties = propertiesOf(document.doc, op.requestSchemaPointer);
    const idProperty = properties[collection.idField];
    if (idProperty) {
      const typed =
        ["integer", "number"].includes(String(idProperty.schema.type)) && /^-?\d+$/.test(id) ? Number(id) : id;
      const withId = { ...(body as Record<string, unknown>), [collection.idField]: typed };
      if (passes(document.doc, op.requestSchemaPointer, "documented", withId)) body = withId;
    }
  }
  const encoded = encodeBody(op, body);
  return {
    request: {
      method: op.method,
      path: pathWith(prefixOf(t), op.path, path.values),
      query: parts.query,
      ...encoded,
      headers: { ...parts.headers, ...encoded.headers },
      ...credentialFor(document, op),
    },
    body,
    own,
    collection,
    path: path.values,
  };
}

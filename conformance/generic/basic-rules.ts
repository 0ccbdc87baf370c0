/**
 * The generic rules every operation can have, from the document alone:
 * - `<op>.success`: a valid request answers the documented success, whose body validates (every answer
 *   does, through RuleContext.call); a read of a record returns that record;
 * - `<op>.unknown-id`: a path id that names no record answers the documented 404;
 * - `<op>.no-credential`: an operation that requires a credential refuses a request without one.
 */
import type { OperationInfo } from "../../mock-server/core/exchange-rules/operation-table.js";
import { requiresCredential } from "../lib/credentials.js";
import type { SuiteDocument } from "../lib/document.js";
import { documentedKey } from "../lib/document-issues.js";
import { obj, type RuleContext, type RuleSpec } from "../lib/rule.js";
import { collectionOfParameter, roleOf } from "./collections.js";
import { expectNotFound, expectSuccess, documentsNotFound } from "./expect.js";
import { prepare } from "./prepare.js";
import { idOfAnswer, trackCreated } from "./records.js";
import { documentOf } from "./run-context.js";
import { unknownIdValue } from "./values.js";
import { parametersOf } from "./requests.js";
import { recordWrite } from "./writes.js";

export function successRule(document: SuiteDocument, op: OperationInfo): RuleSpec {
  const role = roleOf(document, op.operationId);
  return {
    id: `${op.operationId}.success`,
    operationId: op.operationId,
    level: "documented",
    readOnly: op.method === "GET",
    description: `A valid ${op.method} ${op.path} answers its documented success, with a body of the documented schema${role?.role === "read" ? ", and the record asked for" : ""} (generic rule).`,
    run: async (t) => {
      const prepared = await prepare(t, op);
      if ("problem" in prepared) return t.skip(prepared.problem);
      const exchange = await t.call(op.operationId, prepared.request);
      if (role?.role === "create" && exchange.status >= 200 && exchange.status < 300) {
        const id = idOfAnswer(role.collection, exchange);
        t.expect(id !== undefined, {
          pointer: `/${role.collection.idField}`,
          expected: `the id of the record made (${role.collection.idField}, or a Location header)`,
          actual: "(absent)",
          message: "a create answers the id of what it made",
          exchange,
        });
        if (id !== undefined) trackCreated(t, role.collection, id, prepared.path, true);
      } else recordWrite(t, op, exchange, prepared.own !== undefined);
      if (!expectSuccess(t, exchange, op, "a valid request")) return;
      const { collection } = role ?? {};
      if (role?.role === "read" && collection?.idParam && collection.idField in obj(exchange))
        t.expectEqual(
          String(obj(exchange)[collection.idField]),
          prepared.path[collection.idParam],
          `/${collection.idField}`,
          "a read returns the record asked for",
        );
    },
  };
}

/**
 * The path parameter naming the record `op` reads, changes or deletes: the id of a collection's record
 * path (`/x/{id}`). A path below a record (`/x/{id}/qr`) is not held to a 404 for an unknown id: the
 * document does not say that it reads the record, and a mock answers it from its schema.
 */
function recordParameter(document: SuiteDocument, op: OperationInfo) {
  const role = roleOf(document, op.operationId)?.role;
  if (role !== "read" && role !== "update" && role !== "replace" && role !== "remove") return undefined;
  return parametersOf(document, op)
    .filter((p) => p.in === "path")
    .reverse()
    .find((p) => collectionOfParameter(document, op.path, p.name));
}

/** `<op>.unknown-id`, for an operation whose path names a record and that documents 404. */
export function unknownIdRule(document: SuiteDocument, op: OperationInfo): RuleSpec | undefined {
  const param = recordParameter(document, op);
  if (!param || !documentsNotFound(op)) return undefined;
  return {
    id: `${op.operationId}.unknown-id`,
    operationId: op.operationId,
    level: "documented",
    readOnly: op.method === "GET",
    description: `${op.method} ${op.path} with a {${param.name}} that names no record answers the documented 404 (generic rule).`,
    run: async (t) => {
      const unknown = unknownIdValue(documentOf(t).doc, param.schemaPointer, param.schema);
      if (unknown === undefined)
        return t.skip(`no value of {${param.name}}'s schema could be made that names no record`);
      const prepared = await prepare(t, op, { givenPath: { [param.name]: unknown } });
      if ("problem" in prepared) return t.skip(prepared.problem);
      const exchange = await t.call(op.operationId, prepared.request);
      // A PUT that makes the record it names (an upsert the document does not show) leaves one: delete it.
      const collection = collectionOfParameter(documentOf(t), op.path, param.name);
      if (
        collection &&
        exchange.status >= 200 &&
        exchange.status < 300 &&
        op.method !== "GET" &&
        op.method !== "DELETE"
      )
        trackCreated(t, collection, unknown, prepared.path, true);
      expectNotFound(t, exchange, op, `{${param.name}} ${unknown} names no record`);
    },
  };
}

/** Whether `op` documents the refusal of a request without a credential: 401 or 403 (their codes, 4XX, default). */
function documentsRefusal(op: OperationInfo): boolean {
  return documentedKey(op.statuses, 401) !== undefined || documentedKey(op.statuses, 403) !== undefined;
}

/** `<op>.no-credential`, for an operation of another document that requires a credential and documents its refusal. */
export function noCredentialRule(document: SuiteDocument, op: OperationInfo): RuleSpec | undefined {
  if (document.handWritten || !requiresCredential(document.doc, op.path, op.method) || !documentsRefusal(op))
    return undefined;
  return {
    id: `${op.operationId}.no-credential`,
    operationId: op.operationId,
    level: "documented",
    readOnly: op.method === "GET",
    description: `${op.method} ${op.path} requires a credential (its security): a request without one answers 401 or 403 (generic rule).`,
    run: async (t: RuleContext) => {
      const prepared = await prepare(t, op);
      if ("problem" in prepared) return t.skip(prepared.problem);
      const exchange = await t.call(op.operationId, { ...prepared.request, key: null });
      const role = roleOf(documentOf(t), op.operationId);
      if (role?.role === "create" && exchange.status >= 200 && exchange.status < 300) {
        const id = idOfAnswer(role.collection, exchange);
        if (id !== undefined) trackCreated(t, role.collection, id, prepared.path, true);
      } else recordWrite(t, op, exchange, prepared.own !== undefined);
      t.expect(exchange.status === 401 || exchange.status === 403, {
        pointer: "#status",
        expected: "401 or 403 (the operation requires a credential)",
        actual: String(exchange.status),
        message: `${op.method} ${prepared.request.path} without a credential must be refused`,
        exchange,
      });
    },
  };
}

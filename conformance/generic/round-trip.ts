/**
 * `<create>.round-trip`, for a collection the document lets a client create and read or delete: create
 * a record, read it back equal on the fields sent, find it in the list (in the list's shape, page
 * wrapper or plain array), change it (PATCH merges, PUT replaces; also PUT/PATCH on the collection with
 * the id in the body), read it back changed, delete it, and read it back gone (404). Whatever happens,
 * the record is deleted when the rule ends (and on a foreign target the ledger shows it made and removed).
 */
import type { OperationInfo } from "../../mock-server/core/exchange-rules/operation-table.js";
import { obj, type RuleContext, type RuleSpec } from "../lib/rule.js";
import type { Collection } from "./collections.js";
import { differences } from "./compare.js";
import { expectNotFound, expectSuccess } from "./expect.js";
import { walkList } from "./list-walk.js";
import { createRecord, type Created } from "./records.js";
import { documentOf, prefixOf, valueOptions } from "./run-context.js";
import { credentialFor, encodeBody, pathWith, requiredParts, validBodyValue } from "./requests.js";
import { propertiesOf } from "./schema-walk.js";
import { passes } from "./values.js";

/** The change a round trip makes: which operation, and whether it merges (PATCH) or replaces (PUT). */
function changeOf(c: Collection): { op: OperationInfo; merges: boolean; idInBody: boolean } | undefined {
  if (c.update) return { op: c.update, merges: true, idInBody: false };
  if (c.replace) return { op: c.replace, merges: false, idInBody: false };
  if (c.bodyUpdate) return { op: c.bodyUpdate, merges: true, idInBody: true };
  if (c.bodyReplace) return { op: c.bodyReplace, merges: false, idInBody: true };
  return undefined;
}

function recordPath(t: RuleContext, op: OperationInfo, c: Collection, made: Created): string {
  return pathWith(prefixOf(t), op.path, { ...made.parents, [c.idParam ?? ""]: made.id });
}

async function readBack(
  t: RuleContext,
  c: Collection,
  made: Created,
  what: string,
): Promise<Record<string, unknown> | undefined> {
  const read = c.read!;
  const exchange = await t.call(read.operationId, {
    method: "GET",
    path: recordPath(t, read, c, made),
    query: requiredParts(documentOf(t), read, valueOptions(t)).query,
    ...credentialFor(documentOf(t), read),
  });
  return expectSuccess(t, exchange, read, what) ? obj(exchange) : undefined;
}

/**
 * The body of the change: a valid body of other values (generated, not the examples the create used);
 * for a merge, only its required fields and the first field whose value differs, so that the fields not
 * sent show whether the record kept them.
 */
function changeBody(
  t: RuleContext,
  c: Collection,
  op: OperationInfo,
  made: Created,
  merges: boolean,
  idInBody: boolean,
): unknown {
  const document = documentOf(t);
  const pointer = op.requestSchemaPointer;
  if (!pointer) return undefined;
  const full = validBodyValue(document, op, { ...valueOptions(t, 977), examples: false }).value;
  if (!full || typeof full !== "object" || Array.isArray(full)) return full;
  const properties = propertiesOf(document.doc, pointer);
  const record = (made.exchange.json ?? {}) as Record<string, unknown>;
  let body = { ...(full as Record<string, unknown>) };
  delete body[c.idField];
  if (merges) {
    const sent = made.sent as Record<string, unknown>;
    const changed = Object.keys(body).find((k) => JSON.stringify(body[k]) !== JSON.stringify(sent?.[k] ?? record[k]));
    const kept = Object.fromEntries(Object.entries(body).filter(([k]) => properties[k]?.required || k === changed));
    if (passes(document.doc, pointer, "documented", kept)) body = kept;
  }
  if (idInBody || properties[c.idField]) {
    const typed = ["integer", "number"].includes(String(properties[c.idField]?.schema.type))
      ? Number(made.id)
      : made.id;
    const withId = { ...body, [c.idField]: typed };
    if (idInBody || passes(document.doc, pointer, "documented", withId)) body = withId;
  }
  return body;
}

export function roundTripRule(c: Collection): RuleSpec | undefined {
  const create = c.create;
  if (!create || !(c.read || c.remove)) return undefined;
  const change = changeOf(c);
  const steps = [
    "create",
    c.read && "read back equal",
    c.list && "listed",
    change && (change.merges ? "merged (PATCH)" : "replaced (PUT)"),
    change && c.read && "read back changed",
    c.remove && "deleted",
    c.remove && c.read && "then 404",
  ].filter(Boolean);
  return {
    id: `${create.operationId}.round-trip`,
    operationId: create.operationId,
    level: "documented",
    readOnly: false,
    description: `The ${c.path} collection end to end: ${steps.join(", ")}; the record is deleted whatever happens (generic rule).`,
    run: async (t) => {
      const doc = documentOf(t).doc;
      const recordProperties = c.recordSchema ? propertiesOf(doc, c.recordSchema) : {};
      const made = await createRecord(t, c, { salt: 0, ruleOwned: true });
      if ("problem" in made) {
        if (made.exchange) expectSuccess(t, made.exchange, create, "the create of a valid record");
        else t.skip(made.problem);
        return;
      }
      if (!expectSuccess(t, made.exchange, create, "the create of a valid record")) return;
      const sentDiff = (record: Record<string, unknown>, sent: unknown, what: string, skip: string[] = []) => {
        for (const d of differences(sent, record, recordProperties, skip))
          t.expectEqual(d.got, d.sent, `/${d.field}`, `${what}: ${d.field} as sent`);
      };
      sentDiff(obj(made.exchange), made.sent, "the create answers the record made");
      if (c.read) {
        const record = await readBack(t, c, made, "the record just made reads back");
        if (record) sentDiff(record, made.sent, "the record reads back as made");
      }
      if (c.list) {
        const walk = await walkList(t, c, made.parents, (item) => String(item[c.idField]) === made.id);
        if (walk.problem)
          t.expect(false, {
            pointer: "",
            expected: "a list of records",
            actual: walk.problem,
            message: "the list answers its records",
          });
        else
          t.expect(walk.found !== undefined, {
            pointer: "",
            expected: `a record with ${c.idField} ${made.id} in ${c.list.method} ${c.list.path}`,
            actual: `${walk.items.length} records listed, none of them it`,
            message: "a record just made is listed",
          });
      }
      if (change) {
        const body = changeBody(t, c, change.op, made, change.merges, change.idInBody);
        const encoded = encodeBody(change.op, body);
        const parts = requiredParts(documentOf(t), change.op, valueOptions(t));
        const exchange = await t.call(change.op.operationId, {
          method: change.op.method,
          path: recordPath(t, change.op, c, made),
          query: parts.query,
          ...encoded,
          headers: { ...parts.headers, ...encoded.headers },
          ...credentialFor(documentOf(t), change.op),
        });
        if (
          expectSuccess(t, exchange, change.op, `the ${change.merges ? "merge" : "replacement"} of the record`) &&
          c.read
        ) {
          const record = await readBack(t, c, made, "the changed record reads back");
          if (record) {
            sentDiff(record, body, "the record reads back changed", [c.idField]);
            if (change.merges) {
              // Merge: what the change did not send is as it was (fields the client sets, not the server's own).
              const settable = change.op.requestSchemaPointer ? propertiesOf(doc, change.op.requestSchemaPointer) : {};
              const notSent = Object.fromEntries(
                Object.entries((made.sent ?? {}) as Record<string, unknown>).filter(
                  ([k]) => settable[k] && !(body && typeof body === "object" && k in body) && k !== c.idField,
                ),
              );
              for (const d of differences(notSent, record, recordProperties))
                t.expectEqual(d.got, d.sent, `/${d.field}`, `PATCH merges: ${d.field}, not sent, keeps its value`, {
                  assumed: true,
                });
            }
          }
        }
      }
      if (c.remove) {
        const gone = await t.call(c.remove.operationId, {
          method: "DELETE",
          path: recordPath(t, c.remove, c, made),
          ...credentialFor(documentOf(t), c.remove),
        });
        if (expectSuccess(t, gone, c.remove, "the delete of the record") && c.read) {
          const again = await t.call(c.read.operationId, {
            method: "GET",
            path: recordPath(t, c.read, c, made),
            ...credentialFor(documentOf(t), c.read),
          });
          expectNotFound(t, again, c.read, "a deleted record");
        }
      }
    },
  };
}

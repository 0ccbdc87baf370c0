/**
 * A write outside the document's collections (an action: `POST /pets/{id}/vaccinate`, `POST
 * /user/createWithList`) that a foreign target accepted: the document shows no way to undo it, so the
 * ledger lists it as `left`, for a person to check. Writes on records of the rule's own, and
 * creates (tracked with their ids), need no such line.
 */
import type { OperationInfo } from "../../mock-server/core/exchange-rules/operation-table.js";
import { record } from "../fixtures/ledger.js";
import type { Exchange } from "../lib/http.js";
import type { RuleContext } from "../lib/rule.js";
import { roleOf } from "./collections.js";
import { documentOf } from "./run-context.js";

export function recordWrite(t: RuleContext, op: OperationInfo, exchange: Exchange, onOwnRecord = false): void {
  if (t.fixtures.isMock || op.method === "GET" || onOwnRecord) return;
  if (exchange.status < 200 || exchange.status >= 300) return;
  if (roleOf(documentOf(t), op.operationId)) return;
  const id = `${op.method} ${exchange.request.path}`;
  if (t.fixtures.ledger.some((e) => e.kind === "write" && e.id === id)) return;
  record(t.fixtures, {
    kind: "write",
    id,
    state: "left",
    note: `${op.operationId} answered ${exchange.status} (sent by ${t.rule.id}); it belongs to no collection of the document, so the run cannot undo what it did`,
  });
}

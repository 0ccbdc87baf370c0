/**
 * One sentence per variant telling a person how to make the mock answer it, true of this mock: the
 * natural way where the mock has one (the spec's own error example says what provokes the status), and
 * always the forced way for a status: a fault rule (error statuses only) or `Prefer: code=NNN`, which the
 * pipeline applies after the API key and request validation, so the request must be valid otherwise.
 * A request without a key belongs to no workspace, so a consumer's 401 can only be forced.
 */
import { derefIn } from "../spec.js";
import type { OperationInfo } from "../exchange-rules/operation-table.js";

type Node = Record<string, unknown>;

/** The first example summary of a documented response, if it has one. */
function exampleSummary(document: object, op: OperationInfo, status: string, paths: Node): string | undefined {
  const operation = (paths[op.path] as Node | undefined)?.[op.method.toLowerCase()] as Node | undefined;
  const response = derefIn<Node | undefined>(document, (operation?.responses as Node | undefined)?.[status]);
  const content = response?.content as Record<string, Node> | undefined;
  for (const media of Object.values(content ?? {}))
    for (const example of Object.values((media.examples as Node | undefined) ?? {})) {
      const summary = derefIn<Node | undefined>(document, example)?.summary;
      if (typeof summary === "string" && summary.trim() !== "") return summary.trim();
    }
  return undefined;
}

/** The response's own notes: where the spec says the mock answers a status only when forced. */
function responseNotes(document: object, op: OperationInfo, status: string, paths: Node): string {
  const operation = (paths[op.path] as Node | undefined)?.[op.method.toLowerCase()] as Node | undefined;
  const raw = (operation?.responses as Node | undefined)?.[status] as Node | undefined;
  const response = derefIn<Node | undefined>(document, raw);
  return [raw?.["x-assumption"], response?.["x-assumption"], response?.description]
    .filter((v) => typeof v === "string")
    .join(" ");
}

/** `A body without name` -> `a body without name`; `API_KEY ...` and `size=0 ...` stay as they are. */
const lowerFirst = (s: string) => (/^[A-Z](?![A-Z0-9_])/.test(s) ? s[0].toLowerCase() + s.slice(1) : s);

const article = (noun: string) => (/^[aeiou]/i.test(noun) ? `an ${noun}` : `a ${noun}`);

/** `add a fault rule (...) or send Prefer: code=404 on an otherwise valid request`. */
function forced(op: OperationInfo, status: number): string {
  const prefer = `send \`Prefer: code=${status}\` on an otherwise valid request`;
  if (status < 400) return prefer;
  const rule = `{"operationId": "${op.operationId}", "workspaceId": "<yours>", "status": ${status}, "times": 1}`;
  return `add a fault rule (POST /__mock/faults ${rule}) or ${prefer}`;
}

/** How to make `op` answer `status`. */
export function statusHowTo(document: object, op: OperationInfo, status: string): string {
  const paths = ((document as Node).paths ?? {}) as Node;
  const code = Number(status);
  const force = forced(op, code);
  const example = exampleSummary(document, op, status, paths);
  const onlyForced = /only when forced/i.test(`${responseNotes(document, op, status, paths)} ${example ?? ""}`);
  const hasIds = op.parameters.some((p) => p.in === "path");
  if (code >= 200 && code < 300)
    return `Send a valid ${op.method} ${op.path}${hasIds ? " naming a record of the workspace" : ""}; to force it, ${force}.`;
  if (code === 401)
    return `A request without a key counts for no workspace, so force it with the workspace's key: ${force}.`;
  if (code >= 500 || onlyForced || !example) return `The mock answers ${status} here only when forced: ${force}.`;
  if (code === 403)
    return /read-only/i.test(example)
      ? `Force it: ${force} (the mock answers 403 on its own only to a read-only workspace's key, which counts for that workspace).`
      : `Force it: ${force}.`;
  if (code === 400) return `Send an invalid request (e.g. ${lowerFirst(example)}), or ${force}.`;
  if (code === 404) return `Name what does not exist (e.g. ${lowerFirst(example)}), or ${force}.`;
  return `Send ${lowerFirst(example)}, or ${force}.`;
}

export type PageKind = "empty" | "first" | "middle" | "last";

/** How to get a page of `kind` from the list `op`. */
export function pageHowTo(op: OperationInfo, kind: PageKind): string {
  const filters = op.parameters
    .filter((p) => p.in === "query" && p.name !== "page" && p.name !== "size")
    .map((p) => String(p.name));
  switch (kind) {
    case "empty":
      return `Ask for a page past the end (page=totalPages)${
        filters.length > 0 ? `, or filter on ${filters.join(" or ")} with a value no record has` : ""
      }, or list a workspace that holds none.`;
    case "first":
      return "Ask for page=0 with a size below the total (e.g. size=1 when there are two records or more).";
    case "middle":
      return "Ask for a page between the first and the last (e.g. page=1&size=1 when there are three records or more).";
    case "last":
      return "Ask for the last of several pages, page=totalPages-1 (e.g. page=1&size=1 when there are two records).";
  }
}

/** `PhoneNumber` -> `phone number`, `QaRule` -> `QA rule`. */
export function resourceNoun(schemaName: string | undefined): string {
  if (!schemaName) return "record";
  return schemaName
    .split(/(?=[A-Z])/)
    .map((word) => (word === "Qa" ? "QA" : word.toLowerCase()))
    .join(" ");
}

/**
 * How to read a record whose `field` is `what` ("error", "null", "set (not null)"). The every-variant
 * scenario and the control plane's fill hold the kit's own records only: a resource of no control-plane
 * `collection` (an operation a spec author adds) is named without either.
 */
export function fieldHowTo(
  op: OperationInfo,
  resource: { noun: string; collection?: string; list: boolean },
  field: string,
  what: string,
): string {
  const read = resource.list
    ? `List ${resource.noun}s (${op.method} ${op.path}) with one whose ${field} is ${what} on the page`
    : `Get ${article(resource.noun)} (${op.method} ${op.path}) whose ${field} is ${what}`;
  if (!resource.collection) return `${read}.`;
  const fill = `, or a record filled through POST /__mock/workspaces/{workspaceId}/${resource.collection} that has it`;
  return `${read}: e.g. one seeded in a workspace created with "scenario": "every-variant"${fill}.`;
}

/** When the mock sends each event kind (mock-server/sim/calls.ts and chats.ts, the spec's webhooks). */
const EVENT_MOMENT: Record<string, string> = {
  conversation_started:
    "start a conversation with that agent: the first turn of a chat (POST /v1/chat) or a call that connects (reaches in_progress)",
  conversation_ended:
    "end a conversation with that agent: a chat with no turn for the agent's endCallOnSilenceDuration (advance the clock with POST /__mock/clock/advance) or a connected call reaching a final state",
};

/** How to have a webhook delivery of `event` sent. */
export function webhookHowTo(event: string): string {
  const moment = EVENT_MOMENT[event] ?? `make the mock send ${event}`;
  return `Give an agent an active webhook subscribed to ${event} (POST /__mock/workspaces/{workspaceId}/webhooks {"agentId": "<agent>", "url": "<your receiver>", "events": "${event}", "active": true}), then ${moment}.`;
}

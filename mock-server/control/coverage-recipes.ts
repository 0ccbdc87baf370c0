/**
 * How to provoke each response variant in one workspace (GET /__mock/coverage's `recipe`). A record's
 * variants are found by asking the operations' own handlers, read-only, and judging their answers with
 * the same observation the live traffic goes through (core/coverage): a recipe names a page or an id
 * only where the answer shows the variant, so walking the recipes reaches what they promise.
 */
import type { components } from "../../generated/mock-control.js";
import type { Catalogue, VariantDef } from "../core/coverage/catalogue.js";
import { observedVariants } from "../core/coverage/observe.js";
import type { Contract } from "../core/contract.js";
import type { Operation } from "../core/operations.js";
import { handlers } from "../routes/index.js";
import type { Handler, RequestContext, Services } from "../routes/context.js";
import { collectionNames, collectionOptions, type CollectionName } from "../store/records.js";
import type { Workspace } from "../store/workspace.js";

export type RecipeRequest = components["schemas"]["RecipeRequest"];

/** Where the consumer's webhook receiver goes in a webhook recipe: the mock cannot know it. */
export const RECEIVER_PLACEHOLDER = "https://your-receiver.example/webhooks";

const MULTIPART_BOUNDARY = "agent-platform-mock-recipe";

/** The variants a read of this workspace can show, each with the read that shows it: key -> recipe. */
export function readRecipes(
  catalogue: Catalogue,
  contract: Contract,
  workspace: Workspace,
  services: Services,
): Map<string, RecipeRequest[]> {
  const out = new Map<string, RecipeRequest[]>();
  const found = (keys: string[], request: RecipeRequest) => {
    for (const key of keys) if (!out.has(key)) out.set(key, [request]);
  };
  for (const op of contract.operations) {
    if (op.method !== "get") continue;
    const read = (path: Record<string, string>, query: Record<string, string>) => {
      const answer = readThrough(op, services, workspace, path, query);
      return answer && observedVariants(catalogue, { operationId: op.operationId, ...answer, query });
    };
    if (op.pathParams.length === 0) {
      // A list: one page as long as the list shows every item; then the pages of one item each.
      const first = readThrough(op, services, workspace, {}, { size: "1" });
      const total = totalOf(first?.body);
      if (total === undefined) continue;
      const all = { page: "0", size: String(Math.max(1, total)) };
      found(read({}, all) ?? [], listRequest(op, all));
      for (const page of pagesToTry(total)) {
        const query = { page: String(page), size: "1" };
        found(read({}, query) ?? [], listRequest(op, query));
      }
    } else {
      for (const params of recordParams(op, workspace)) found(read(params, {}) ?? [], getRequest(op, params));
    }
  }
  return out;
}

/** A request for a status: a one-shot fault rule for an error, `Prefer: code=` for a success. */
export function statusRecipe(
  variant: VariantDef,
  contract: Contract,
  workspace: Workspace,
): RecipeRequest[] | undefined {
  const op = contract.operations.find((o) => o.operationId === variant.operationId);
  if (!op || variant.status === undefined) return undefined;
  const request = sampleRequest(op, contract, workspace);
  if (variant.status < 400) return [{ ...request, headers: { ...request.headers, Prefer: `code=${variant.status}` } }];
  return [
    {
      method: "POST",
      path: "/__mock/faults",
      body: { operationId: op.operationId, workspaceId: workspace.workspaceId, status: variant.status, times: 1 },
    },
    request,
  ];
}

/**
 * A webhook of an agent subscribed to the event at the consumer's receiver (RECEIVER_PLACEHOLDER stands
 * for its URL), then what sends the event: a chat's first turn starts a conversation; the chat ends
 * once no turn comes for the agent's silence duration, which the workspace's clock skips (sim/chats.ts).
 */
export function webhookRecipe(variant: VariantDef, workspace: Workspace): RecipeRequest[] | undefined {
  const agent = workspace.collections.agents.all()[0];
  if (!agent || !variant.event) return undefined;
  const subscribe: RecipeRequest = {
    method: "POST",
    path: `/__mock/workspaces/${workspace.workspaceId}/webhooks`,
    body: { agentId: agent.agentId, url: RECEIVER_PLACEHOLDER, events: variant.event, active: true },
  };
  const chat: RecipeRequest = {
    method: "POST",
    path: "/v1/chat",
    headers: { "Content-Type": "application/json" },
    body: { agentId: agent.agentId, conversation: `Hello, this is about ${variant.event}.` },
  };
  if (variant.event === "conversation_started") return [subscribe, chat];
  if (variant.event !== "conversation_ended") return undefined;
  const silence = Number(agent.agentSettings?.endCallOnSilenceDuration) || 5;
  const advance: RecipeRequest = {
    method: "POST",
    path: "/__mock/clock/advance",
    body: { workspaceId: workspace.workspaceId, seconds: Math.ceil(silence * 60) + 60 },
  };
  return [subscribe, chat, advance];
}

/** The answer of a read, as the pipeline would give it; undefined when the read fails. */
function readThrough(
  op: Operation,
  services: Services,
  workspace: Workspace,
  path: Record<string, string>,
  query: Record<string, string>,
): { status: number; body: unknown } | undefined {
  const target: { path: Record<string, string>; query: Record<string, unknown> } = {
    path: { ...path },
    query: { ...query },
  };
  if (!op.validateParams(target)) return undefined;
  const handler = handlers[op.operationId] as Handler<never> | undefined;
  if (!handler) return undefined;
  const ctx = {
    workspace,
    params: target.path,
    query: target.query,
    body: undefined,
    form: undefined,
    services,
  } as unknown as RequestContext<never>;
  try {
    const reply = handler(ctx);
    if (reply instanceof Promise) return undefined;
    return { status: reply.status, body: reply.body };
  } catch {
    return undefined;
  }
}

/** The total a page states (totalCount, or totalCounts for phone numbers). */
function totalOf(body: unknown): number | undefined {
  const page = body as Record<string, unknown> | undefined;
  const total = page?.totalCount ?? page?.totalCounts;
  return typeof total === "number" ? total : undefined;
}

/** Page numbers at size 1 that give the first, a middle, the last and an empty page (past the end). */
function pagesToTry(total: number): number[] {
  return [...new Set([0, 1, Math.max(0, total - 1), total])];
}

/** Path parameters naming each record the operation can read: the collection whose id the parameter is. */
function recordParams(op: Operation, workspace: Workspace): Record<string, string>[] {
  if (op.pathParams.length !== 1) return [];
  const [param] = op.pathParams;
  const name = collectionOfParam(workspace, param);
  if (!name) return [];
  const { idOf } = collectionOptions[name] as { idOf: (r: unknown) => string };
  return workspace.collections[name].all().map((record) => ({ [param]: idOf(record) }));
}

/** The collection whose records carry `param` as their id (`callId` -> calls); none when it names none. */
function collectionOfParam(workspace: Workspace, param: string): CollectionName | undefined {
  for (const name of collectionNames) {
    const record = workspace.collections[name].all()[0] as Record<string, unknown> | undefined;
    const { idOf } = collectionOptions[name] as { idOf: (r: unknown) => string };
    if (record && record[param] !== undefined && idOf(record) === record[param]) return name;
  }
  return undefined;
}

function listRequest(op: Operation, query: Record<string, string>): RecipeRequest {
  return { method: "GET", path: op.path, query };
}

function getRequest(op: Operation, params: Record<string, string>): RecipeRequest {
  return { method: op.method.toUpperCase(), path: fillPath(op.path, params) };
}

function fillPath(template: string, params: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ""));
}

/**
 * A valid request to the operation: path parameters from the workspace's records (else the spec's
 * example), and the spec's example body (else a sample of its schema).
 */
function sampleRequest(op: Operation, contract: Contract, workspace: Workspace): RecipeRequest {
  const params: Record<string, string> = {};
  for (const param of op.pathParams) {
    const name = collectionOfParam(workspace, param);
    const record = name ? workspace.collections[name].all()[0] : undefined;
    params[param] = record
      ? (collectionOptions[name!] as { idOf: (r: unknown) => string }).idOf(record)
      : String(parameterExample(contract, op, param) ?? "00000000-0000-4000-8000-000000000000");
  }
  const request: RecipeRequest = { method: op.method.toUpperCase(), path: fillPath(op.path, params) };
  if (!op.bodyType) return request;
  const example = bodyExample(contract, op) ?? contract.sample(op.bodySchema);
  if (op.bodyType === "application/json")
    return { ...request, headers: { "Content-Type": "application/json" }, body: example };
  return {
    ...request,
    headers: { "Content-Type": `multipart/form-data; boundary=${MULTIPART_BOUNDARY}` },
    body: multipartText(example as Record<string, unknown>),
  };
}

function parameterExample(contract: Contract, op: Operation, name: string): unknown {
  const item = contract.deref<Record<string, any>>((contract.document as any).paths?.[op.path]);
  const parameters = [...(item?.parameters ?? []), ...(item?.[op.method]?.parameters ?? [])].map((p) =>
    contract.deref<Record<string, any>>(p),
  );
  const parameter = parameters.find((p) => p?.name === name);
  if (!parameter) return undefined;
  if (parameter.example !== undefined) return parameter.example;
  const first = Object.values<any>(parameter.examples ?? {})[0];
  return first ? contract.deref<Record<string, any>>(first).value : undefined;
}

function bodyExample(contract: Contract, op: Operation): unknown {
  const item = contract.deref<Record<string, any>>((contract.document as any).paths?.[op.path]);
  const media = contract.deref<Record<string, any>>(item?.[op.method]?.requestBody)?.content?.[op.bodyType!];
  if (media?.example !== undefined) return media.example;
  const first = Object.values<any>(media?.examples ?? {})[0];
  return first ? contract.deref<Record<string, any>>(first).value : undefined;
}

/** A form's fields as multipart text; a binary field becomes a small text file. */
function multipartText(fields: Record<string, unknown>): string {
  const parts = Object.entries(fields ?? {}).map(([name, value]) => {
    const isFile = typeof value === "string" && /^(file|files|document)$/i.test(name);
    const head = isFile
      ? `Content-Disposition: form-data; name="${name}"; filename="notes.txt"\r\nContent-Type: text/plain`
      : `Content-Disposition: form-data; name="${name}"`;
    const text = isFile ? "Opening hours: 9 to 5." : typeof value === "string" ? value : JSON.stringify(value);
    return `--${MULTIPART_BOUNDARY}\r\n${head}\r\n\r\n${text}\r\n`;
  });
  return `${parts.join("")}--${MULTIPART_BOUNDARY}--\r\n`;
}

/**
 * What the pipeline knows of one request as it goes (Exchange), and what the journal keeps of it: the
 * captured /v1 exchange for the HAR export and the response variants its answer showed (coverage).
 */
import type { AnswerSource, CoreReply, RequestHead } from "../core/exchange.js";
import type { Contract } from "../core/contract.js";
import { variantCatalogue } from "../core/coverage/catalogue.js";
import { observedVariants } from "../core/coverage/observe.js";
import type { Fault } from "../core/faults.js";
import type { Operation } from "../core/operations.js";
import { randomUUID } from "../core/portable-crypto.js";
import type { CapturedExchange } from "../store/journal.js";
import type { Workspace } from "../store/workspace.js";

/** Where a request stands, for the routing, the journal and the error body. */
export interface Exchange {
  head: RequestHead;
  /** head.url split at its `?`: the path routed on, and the raw query. */
  urlPath: string;
  query: string;
  /** The path as the client sent it (mount path included), without the query. */
  path: string;
  operationId: string | null;
  /** The operation of the served spec the request was routed to, with that spec. */
  served?: { contract: Contract; op: Operation };
  workspace?: Workspace;
  fault?: Fault;
  /** In front of an upstream: where the answer came from. */
  source?: AnswerSource;
  /** The request body as read, for the journal's captured exchange (the HAR export). */
  requestBody?: CapturedExchange["requestBody"];
  /** An operation of the API: what its answer is judged against for coverage (core/coverage). */
  api?: { contract: Contract; query: Record<string, string | string[]> };
  /** The mock's answer before it was written as JSON: what coverage observes, no parse needed. */
  answer?: unknown;
  /** A GET's answer whose JSON.stringify is the body sent: what the journal keeps instead of the text. */
  sentJson: unknown;
  /** The dashboard's own files: not journaled (pipeline.ts DASHBOARD_HEADER says why). */
  quiet?: true;
}

const VALID_REQUEST_ID = /^[\w.-]{1,100}$/;

/** The request's X-Request-Id: the client's when it is a sane token, else a new one. */
export function requestIdOf(head: RequestHead): string {
  const given = head.headers["x-request-id"];
  return typeof given === "string" && VALID_REQUEST_ID.test(given) ? given : randomUUID();
}

/**
 * Whether the request went to the served document's API (an operation, or a path under it: the kit's
 * `/v1`, another document's base path): what the upstream door marks with X-Mock-Source and the HAR
 * export shows, for any document.
 */
export const isApiExchange = (exchange: Exchange, contract: Contract) =>
  exchange.served !== undefined || contract.isApiPath(exchange.urlPath);

/**
 * The response variants the mock's answer showed its workspace (GET /__mock/coverage); an upstream's
 * answer is observed by the door after it is written (upstream-step.ts). A body-less answer (an error
 * reply, a fault) shows its status.
 */
export function variantsOf(exchange: Exchange, status: number | null): string[] | undefined {
  const { api, workspace, operationId } = exchange;
  if (!api || !workspace || status === null || operationId === null || exchange.source === "upstream") return undefined;
  const catalogue = variantCatalogue(api.contract.document);
  return observedVariants(catalogue, { operationId, status, query: api.query, body: exchange.answer });
}

/** What the journal keeps of an API exchange for the HAR export: references, no copies; one object shape. */
export function captured(exchange: Exchange, reply: CoreReply): CapturedExchange {
  return {
    requestHeaders: exchange.head.headers,
    requestBody: exchange.requestBody,
    responseHeaders: reply.headers,
    responseBody: reply.body,
    responseJson: reply.body === undefined ? undefined : exchange.sentJson,
  };
}

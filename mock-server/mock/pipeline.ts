/**
 * The core: the whole request pipeline in one place, with no transport in it. Every door (node:http,
 * Express, MSW) hands a request in here and writes back the reply that comes out.
 *
 *   request id -> CORS preflight -> route (404; 405 with Allow)
 *   -> /__mock control plane, /openapi.json, /docs
 *   -> for an operation of the spec: API key to workspace (401/403; another document: its own security,
 *      mock/credentials.ts) -> fault rules (delay, then an
 *      error status, a reset connection, an empty 200, or a trickled answer) -> Content-Type (400/415)
 *      -> body, read by the door only now (413 at the limit) -> parameter and body validation (400)
 *      -> Prefer controls -> handler -> response validation (500 on drift)
 *   -> any failure: the reference's error body (2.2); another document's own error body for its
 *      operations (generic/) -> journal
 *
 * Operations are routed under the contract's base path (`basePath + path`; the kit's spec has none).
 */
import type { ControlAccess } from "../control/access.js";
import type { ControlRoute } from "../control/router.js";
import { docsPage } from "../docs-site/page.js";
import type { Workspace } from "../store/workspace.js";
import { authenticate } from "./auth.js";
import type { CredentialWorkspaces } from "./credentials.js";
import type { Handler, Reply, Services } from "../routes/context.js";
import { CORS_HEADERS, preflightHeaders } from "../core/cors.js";
import { ApiError, errorBody, invalid, STATUS_TEXT, toApiError } from "../core/errors.js";
import type { Contract } from "../core/contract.js";
import { faultError, type FaultRules, type Fault } from "../core/faults.js";
import type {
  BodyReader,
  CoreReply,
  DashboardSite,
  DocsSite,
  RequestHead,
  RequestLogEntry,
  StaticFile,
} from "../core/exchange.js";
import type { RequestJournal } from "../store/journal.js";
import type { Operation } from "../core/operations.js";
import type { GenericHandler } from "../generic/handler.js";
import { preferredReply } from "../core/prefer.js";
import { captured, isApiExchange, requestIdOf, variantsOf, type Exchange } from "./exchange-record.js";
import { ReplyJson } from "../core/reply-json.js";
import { RouteTable } from "../core/routes.js";
import { replyDrift, toValidationErrors } from "../core/validation.js";
import { EMPTY_FORM, validatedForm } from "../core/uploads.js";
import { forward, type InFront } from "./upstream-step.js";
import { serveControl } from "./control-step.js";
import {
  header,
  jsonReply,
  jsonText,
  NO_BODY,
  parseQuery,
  readOperationBody,
  type OperationBody,
} from "./request-parts.js";

export { JSON_LIMIT_BYTES } from "./request-parts.js";

/** The handler of each operation, by operationId (routes/index.ts). */
export type OperationHandlers = Readonly<Partial<Record<string, Handler<never>>>>;

export interface CoreOptions {
  validateResponses: boolean;
  log: (line: string) => void;
  /**
   * The spec the mock serves now, asked on every request: the core routes, validates, answers
   * /openapi.json and shows the docs by it, and follows it when another is installed (--watch).
   */
  contract: () => Contract;
  /**
   * The hand-written handlers (routes/), by operationId: where there is one, it serves the operation
   * of the kit's spec. Another document's operations never reach them (contract.handwritten).
   */
  handlers: OperationHandlers;
  /**
   * What serves an operation of the contract that has no hand-written handler: the generic layer
   * (generic/), which answers from the document alone. Asked once per operation and contract.
   */
  generic: (contract: Contract, op: Operation) => GenericHandler;
  /** The /__mock control plane (control/router.ts), served under /__mock. */
  control: ControlRoute[];
  /** Who may call which control operation (a control token, a workspace's key): control/access.ts. */
  access: ControlAccess;
  /** The fault rules the control plane keeps (POST /__mock/faults). */
  faults: FaultRules;
  /** Serves /docs and /docs/{file}; without one, /docs is the built-in page. */
  docs?: DocsSite;
  /** Serves the dashboard (/__mock/ui and its script); without one, there is no /__mock/ui. */
  dashboard?: DashboardSite;
  /** Told of every answered request (the console's request log). */
  onRequest?: (entry: RequestLogEntry) => void;
  /** In front of a real deployment (--upstream): /v1 requests go there unless routed to the mock. */
  upstream?: InFront;
  /** Another document's security: the workspace of each request's credential (mock/credentials.ts). */
  credentials: CredentialWorkspaces;
  /**
   * Another document's error body for one of its operations and a status (generic/): its documented
   * error response, or none (`body` undefined) when it documents none.
   */
  documentError: (contract: Contract, op: Operation, status: number, message: string) => DocumentErrorBody;
}

/** An error body in another document's own shape, and its media type (application/json when absent). */
export interface DocumentErrorBody {
  body?: unknown;
  contentType?: string;
}

type Target =
  | { kind: "operation"; op: Operation; handler: Handler<never> | GenericHandler }
  | { kind: "control"; route: ControlRoute }
  | {
      kind: "static";
      file: (params: Record<string, string>) => StaticFile | undefined | Promise<StaticFile | undefined>;
      /** The dashboard's own files: not journaled, like its requests (DASHBOARD_HEADER). */
      quiet?: true;
    };

export interface Core {
  /** The fault rules (POST /__mock/faults); a shared store keeps them with the mock-wide state. */
  faults: FaultRules;
  /** Serves one request. Never rejects: every failure is an error reply. */
  handle(head: RequestHead, readBody: BodyReader): Promise<CoreReply>;
  /** The error reply (journaled) for a request a door refuses before the core sees it: no Host, an unknown Expect. */
  refuse(head: RequestHead, error: ApiError): CoreReply;
}

/**
 * Sent by the dashboard with each of its requests: they are neither journaled nor told to the request log
 * or the event stream, so looking at the mock neither pushes the app's requests out of the journal nor
 * feeds the dashboard its own reads.
 */
export const DASHBOARD_HEADER = "x-mock-dashboard";

export function createCore(services: Services, journal: RequestJournal, options: CoreOptions): Core {
  const { clock, workspaces } = services;
  const { faults, handlers, generic, docs, dashboard } = options;
  const controlTargets = options.control.map((route) => ({ route, target: { kind: "control", route } as const }));
  // Record JSON by object identity: this core's own, as its records are.
  const replyJson = new ReplyJson();

  /**
   * Everything derived from one contract. An operation without a hand-written handler (a spec
   * author's new one, or any operation of another document) is served by the generic layer.
   */
  function buildRouting(contract: Contract): { contract: Contract; routes: RouteTable<Target> } {
    const routes = new RouteTable<Target>();
    // The operations first: they are the traffic, and routes are tried in order.
    for (const op of contract.operations) {
      // Another document's operationId that happens to be one of the kit's (listAgents) is not the kit's.
      const handler = (contract.handwritten && handlers[op.operationId]) || generic(contract, op);
      routes.add(op.method, contract.basePath + op.path, { kind: "operation", op, handler });
    }
    for (const { route, target } of controlTargets) routes.add(route.method, route.path, target);
    routes.add("GET", "/openapi.json", {
      kind: "static",
      file: () => ({ contentType: "application/json", body: contract.json() }),
    });
    if (docs) {
      routes.add("GET", "/docs", { kind: "static", file: () => docs("", contract) });
      routes.add("GET", "/docs/{file}", { kind: "static", file: (params) => docs(params.file, contract) });
    } else {
      let page: string | undefined;
      routes.add("GET", "/docs", {
        kind: "static",
        file: () => ({ contentType: "text/html; charset=utf-8", body: (page ??= docsPage(contract)) }),
      });
    }
    if (dashboard) {
      routes.add("GET", "/__mock/ui", { kind: "static", file: () => dashboard(""), quiet: true });
      routes.add("GET", "/__mock/ui/{file}", { kind: "static", file: (params) => dashboard(params.file), quiet: true });
    }
    return { contract, routes };
  }

  let routing = buildRouting(options.contract());
  /** The routes of the contract in use; a request already routed finishes on the ones it got. */
  const currentRoutes = () => {
    const contract = options.contract();
    if (routing.contract !== contract) routing = buildRouting(contract);
    return routing;
  };

  /**
   * Serves one request. Every step that can wait (a shared store, a body, Prefer, an async handler,
   * faults, an upstream) returns a promise only when it has to: in memory, a GET runs through with no
   * await, each of which cost a promise and a trip through the microtask queue.
   */
  function serve(exchange: Exchange, readBody: BodyReader): Maybe<CoreReply> {
    const { head } = exchange;
    if (head.method === "OPTIONS" && head.headers["access-control-request-method"]) {
      return { status: 204, headers: preflightHeaders(header(head, "access-control-request-headers")) };
    }
    const { contract, routes } = currentRoutes();
    const match = routes.match(head.method, exchange.urlPath);
    if (!match.found) {
      if (!match.allow) throw new ApiError(404, `No operation at ${head.method} ${exchange.path}`);
      // A plain OPTIONS (not a CORS preflight) asks what is allowed.
      if (head.method === "OPTIONS") return { status: 204, headers: { Allow: match.allow } };
      throw new ApiError(405, `${head.method} is not allowed here; allowed: ${match.allow}`, undefined, {
        Allow: match.allow,
      });
    }
    const { target, params } = match;
    if (target.kind === "static") return serveStatic(exchange, target, params);
    exchange.operationId = target.kind === "operation" ? target.op.operationId : target.route.operationId;
    if (target.kind === "control")
      return serveControl(
        {
          access: options.access,
          upstream: options.upstream,
          refuseDrift: options.validateResponses ? refuseDrift : undefined,
        },
        exchange,
        target.route,
        params,
        readBody,
      );
    return serveOperation({ exchange, contract, op: target.op, handler: target.handler, path: params }, readBody);
  }

  async function serveStatic(
    exchange: Exchange,
    target: Extract<Target, { kind: "static" }>,
    params: Record<string, string>,
  ): Promise<CoreReply> {
    if (target.quiet) exchange.quiet = true;
    const file = await target.file(params);
    if (!file) throw new ApiError(404, `No file at ${exchange.path}`);
    return { status: 200, headers: { "Content-Type": file.contentType, ...file.headers }, body: file.body };
  }

  function serveOperation(call: OperationCall, readBody: BodyReader): Maybe<CoreReply> {
    const { exchange, contract, op } = call;
    exchange.served = { contract, op };
    const admitted = workspaceOf(exchange, contract, op);
    const admit = (workspace: Workspace) => {
      exchange.workspace = workspace;
      // From here on the answer is the workspace's: a fault's or Prefer's counts for its coverage as well.
      exchange.api = { contract, query: parseQuery(exchange.query) };
      // Rules count their matches: the store writes that like any change (no transaction without rules).
      if (faults.size > 0 || options.upstream) return serveWithRules(call, readBody, workspace);
      return serveByMock(call, readBody, workspace, undefined);
    };
    return admitted instanceof Promise ? admitted.then(admit) : admit(admitted);
  }

  /** The request's workspace: its API key's (the kit's spec), its credential's (another document's). */
  function workspaceOf(exchange: Exchange, contract: Contract, op: Operation): Maybe<Workspace> {
    const { head } = exchange;
    if (!contract.handwritten) return options.credentials.workspaceFor(contract, op, head, exchange.query);
    const inFront = options.upstream;
    // In front of an upstream the client's key is the upstream's business: the mock serves the door's workspace.
    if (inFront)
      return inFront.ready.then(() =>
        authenticate(workspaces, workspaces.get(inFront.workspaceId)?.apiKey, head.method),
      );
    return authenticate(workspaces, head.headers["x-api-key"], head.method);
  }

  /** An operation with fault rules set, or in front of an upstream: the rule first, then the mock or the upstream. */
  async function serveWithRules(call: OperationCall, readBody: BodyReader, workspace: Workspace): Promise<CoreReply> {
    const { exchange, contract, op, path } = call;
    const { head } = exchange;
    const inFront = options.upstream;
    const fault = (exchange.fault =
      faults.size > 0
        ? await workspaces.transactMock(() => faults.match(op.operationId, workspace.workspaceId))
        : undefined);
    if (fault) {
      if (fault.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
      // These three answer in place of the service: the handler does not run, the store is untouched.
      if (fault.kind === "status") throw faultError(fault, STATUS_TEXT[fault.status!] ?? "Error");
      if (fault.kind === "reset") return { status: 0, headers: {}, reset: true };
      if (fault.kind === "empty") return { status: 200, headers: {} };
    }
    const serveMock = (reader: BodyReader) => serveByMock(call, reader, workspace, fault);
    if (!inFront) return serveMock(readBody);
    if (inFront.modes.modeOf(op.operationId) === "mock") {
      // A record the door just kept from the upstream is there for the mock to serve.
      await inFront.drift.settled();
      return serveMock(readBody);
    }
    // The door's own 502 or 504 for an upstream that failed is still the upstream's answer, not the mock's.
    exchange.source = "upstream";
    const query = exchange.api!.query;
    const forwarded = await forward(inFront, workspaces, {
      head,
      path: exchange.path,
      op,
      contract,
      pathParams: path,
      query,
      workspace,
      readBody,
      serveMock: async (reader) => serveMock(reader),
      sawBody: (body) => (exchange.requestBody = body),
    });
    exchange.source = forwarded.source;
    if (forwarded.fellBack) options.log(`fallback: ${op.operationId} served by the mock (${forwarded.fellBack})`);
    // A slow fault trickles the upstream's answer as it does the mock's.
    if (fault?.kind === "slow" && forwarded.source === "upstream") forwarded.reply.trickleMs = fault.trickleMs;
    return forwarded.reply;
  }

  /** The mock's own answer to an operation: body, validation, Prefer, the handler, response validation. */
  function serveByMock(
    call: OperationCall,
    readBody: BodyReader,
    workspace: Workspace,
    fault: Fault | undefined,
  ): Maybe<CoreReply> {
    const { exchange, contract, op, handler, path } = call;
    const answer = ({ body, parts }: OperationBody) => {
      if (op.bodyType === "multipart/form-data") exchange.requestBody = { form: parts };
      else if (body !== undefined) exchange.requestBody = { json: body };
      const query = exchange.api!.query;
      if (op.arrayQuery.length > 0) arraysIn(query, op);
      const target = { path, query };
      if (!op.validateParams(target)) {
        // Parameters are reported by their own name (`size`, `phoneNumber`), not by location.
        const errors = op.validateParams.errors?.map((e) => ({
          ...e,
          instancePath: e.instancePath.replace(/^\/(path|query)/, ""),
        }));
        throw invalid(toValidationErrors(errors));
      }
      if (op.bodyType === "application/json" && body !== undefined && !op.validateBody!(body))
        throw invalid(toValidationErrors(op.validateBody!.errors));
      const form = op.bodyType === "multipart/form-data" ? validatedForm(parts, op.validateBody) : EMPTY_FORM;
      const ctx = { workspace, params: path, query, body, form, services };
      const run = () => workspaces.transact(workspace, () => (handler as Handler<any>)(ctx)) as Maybe<Reply>;
      const written = (reply: Reply, preferred?: string) => replyOf(exchange, contract, op, reply, preferred, fault);
      // Most requests carry no Prefer header: no await for it.
      const prefer = header(head, "prefer");
      if (prefer)
        return preferredReply(contract, op, prefer, workspace.clock, exchange.path).then((preferred) =>
          preferred ? written(preferred, prefer) : then(run(), written),
        );
      return then(run(), written);
    };
    const { head } = exchange;
    return op.bodyType ? readOperationBody(head, op, readBody).then(answer) : answer(NO_BODY);
  }

  /** The handler's reply, checked against the spec and written as the door sends it. */
  function replyOf(
    exchange: Exchange,
    contract: Contract,
    op: Operation,
    reply: Reply,
    preferred: string | undefined,
    fault: Fault | undefined,
  ): CoreReply {
    exchange.answer = reply.body;
    if (options.validateResponses) checkReply(op, reply);
    let out: CoreReply;
    if (reply.text)
      out = { status: reply.status, headers: { "Content-Type": reply.text.contentType }, body: reply.text.body };
    else if (reply.body !== undefined && op.method === "get") {
      const { json, bytes } = replyJson.read(reply.body);
      out = { ...jsonText(reply.status, json), bytes };
      exchange.sentJson = reply.body;
    } else out = jsonReply(reply);
    // Another document's answer in a JSON type of its own (application/hal+json) says so.
    const mediaType = contract.handwritten ? undefined : op.responses.get(reply.status)?.mediaType;
    if (mediaType && out.body !== undefined && !reply.text) out.headers["Content-Type"] = mediaType;
    if (preferred !== undefined) out.headers["Preference-Applied"] = preferred;
    if (fault?.kind === "slow") out.trickleMs = fault.trickleMs;
    return out;
  }

  /** The mock must not drift from the spec unnoticed: an off-spec reply becomes a loud 500. */
  function checkReply(op: Operation, reply: Reply): void {
    const documented = op.responses.get(reply.status);
    // A delete that documents no success answers 204 with no body (the generic layer's rule): nothing to check.
    if (!documented && reply.status === 204 && reply.body === undefined && !documentsSuccess(op)) return;
    refuseDrift(
      op.operationId,
      replyDrift(reply, documented?.check, () => documented?.errors() ?? []),
    );
  }

  function refuseDrift(operationId: string, drift: string | undefined): void {
    if (drift === undefined) return;
    options.log(`response validation failed for ${operationId}: ${drift}`);
    throw new ApiError(500, `Mock response failed validation against the spec (${operationId}): ${drift}`);
  }

  function errorReply(exchange: Exchange, err: unknown): CoreReply {
    const error = toApiError(err);
    // 501 is an answer a handler may choose (not implemented), not a failure of the mock.
    if (error.status >= 500 && error.status !== 501 && !exchange.fault)
      options.log(`${exchange.head.method} ${exchange.path} failed: ${(err as Error)?.stack ?? String(err)}`);
    const served = exchange.served;
    if (served && !served.contract.handwritten) {
      const reply = documentErrorReply(error.status, documentError(served.contract, served.op, error));
      Object.assign(reply.headers, error.headers);
      return reply;
    }
    const reply = jsonReply({
      status: error.status,
      body: errorBody(
        exchange.workspace?.clock ?? clock,
        exchange.path,
        error.status,
        error.message,
        error.validationErrors,
      ),
    });
    Object.assign(reply.headers, error.headers);
    return reply;
  }

  /**
   * Journals the request; `at` is when it was answered, on its workspace's clock (the root clock without
   * one). A shared journal's entry is sent before the reply goes: a client that reads it next finds it there.
   */
  function finish(exchange: Exchange, reply: CoreReply, started: number): CoreReply | Promise<CoreReply> {
    const quiet = exchange.quiet || exchange.head.headers[DASHBOARD_HEADER] !== undefined;
    if (exchange.source === "upstream") {
      // The upstream's answer keeps its own request id and CORS headers (lower case); the door adds what it lacks.
      if (!("x-request-id" in reply.headers)) reply.headers["X-Request-Id"] = requestIdOf(exchange.head);
      for (const [name, value] of Object.entries(CORS_HEADERS))
        if (!(name.toLowerCase() in reply.headers)) reply.headers[name] = value;
    } else {
      reply.headers["X-Request-Id"] = requestIdOf(exchange.head);
      Object.assign(reply.headers, CORS_HEADERS);
    }
    const api = isApiExchange(exchange, routing.contract);
    // Every /v1 answer in front of an upstream says where it came from: the mock's unless forwarded.
    const source = exchange.source ?? (options.upstream && api ? ("mock" as const) : undefined);
    if (source) reply.headers["X-Mock-Source"] = source;
    const durationMs = performance.now() - started;
    const workspaceId = exchange.workspace?.workspaceId ?? null;
    const status = reply.reset ? null : reply.status;
    const faultId = exchange.fault?.faultId ?? null;
    const { method } = exchange.head;
    if (quiet) return reply;
    const atMs = (exchange.workspace?.clock ?? clock).nowMs();
    // Every field named, absent ones undefined: one object shape, no spread of a temporary per field.
    const added = journal.add({
      atMs,
      method,
      url: (exchange.head.base ?? "") + exchange.head.url,
      operationId: exchange.operationId,
      workspaceId,
      status,
      durationMs,
      faultId,
      source,
      exchange: api ? captured(exchange, reply) : undefined,
      variants: variantsOf(exchange, status),
    });
    const traceparent = exchange.head.headers.traceparent;
    options.onRequest?.({
      method,
      path: exchange.path,
      status,
      durationMs,
      operationId: exchange.operationId,
      workspaceId,
      faultId,
      faultKind: exchange.fault?.kind ?? null,
      source,
      traceparent: typeof traceparent === "string" ? traceparent : undefined,
    });
    // A shared journal's write is not waited for, only sent before the reply goes (a client that reads the
    // journal next, through any process, finds it). The store being down already made this answer a 500,
    // or did not touch it: the reply stands.
    if (added instanceof Promise) added.catch(() => undefined);
    const sending = journal.sending?.();
    return sending
      ? sending.then(
          () => reply,
          () => reply,
        )
      : reply;
  }

  /** Another document's error body for this error; a plain `{ message }` should the generic layer fail (handle never rejects). */
  function documentError(contract: Contract, op: Operation, error: ApiError): DocumentErrorBody {
    try {
      return options.documentError(contract, op, error.status, error.message);
    } catch (failure) {
      options.log(`error body of ${op.operationId} not made: ${(failure as Error)?.stack ?? String(failure)}`);
      return { body: { message: error.message } };
    }
  }

  /** Another document's error body as a reply: JSON (or its +json type), text as it is, or no body. */
  function documentErrorReply(status: number, { body, contentType }: DocumentErrorBody): CoreReply {
    if (body === undefined) return { status, headers: {} };
    const type = contentType ?? "application/json";
    const text = typeof body === "string" && !/json/i.test(type) ? body : JSON.stringify(body);
    return { status, headers: { "Content-Type": type }, body: text };
  }

  const exchangeOf = (head: RequestHead): Exchange => {
    const q = head.url.indexOf("?");
    const urlPath = q === -1 ? head.url : head.url.slice(0, q);
    return {
      head,
      urlPath,
      query: q === -1 ? "" : head.url.slice(q + 1),
      path: (head.base ?? "") + urlPath,
      operationId: null,
      // Set as the request goes; there from the start, so every exchange has one shape.
      served: undefined,
      workspace: undefined,
      fault: undefined,
      source: undefined,
      requestBody: undefined,
      api: undefined,
      answer: undefined,
      sentJson: undefined,
      quiet: undefined,
    };
  };

  return {
    faults,
    handle(head, readBody) {
      const started = performance.now();
      const exchange = exchangeOf(head);
      const failed = (error: unknown) => finish(exchange, errorReply(exchange, error), started);
      let served: Maybe<CoreReply>;
      try {
        served = serve(exchange, readBody);
      } catch (error) {
        return Promise.resolve(failed(error));
      }
      if (served instanceof Promise) return served.then((reply) => finish(exchange, reply, started), failed);
      return Promise.resolve(finish(exchange, served, started));
    },
    refuse(head, error) {
      const exchange = exchangeOf(head);
      const reply = errorReply(exchange, error);
      void finish(exchange, reply, performance.now());
      return reply;
    },
  };
}

type Maybe<T> = T | Promise<T>;

/** A request routed to an operation, as the steps that serve it hand it on. */
interface OperationCall {
  exchange: Exchange;
  contract: Contract;
  op: Operation;
  handler: Handler<never> | GenericHandler;
  /** The path parameters, as routed. */
  path: Record<string, string>;
}

/** What `next` makes of a value that may still be coming: at once when it is there. */
function then<T, U>(value: Maybe<T>, next: (value: T) => U): Maybe<U> | Promise<Awaited<U>> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/** Whether the operation documents a 2xx answer. */
const documentsSuccess = (op: Operation) => [...op.responses.keys()].some((status) => status >= 200 && status < 300);

/** Array-typed query parameters as arrays: one value (`?tags=a`) or a delimited list (`?tags=a,b`). */
function arraysIn(query: Record<string, string | string[]>, op: Operation): void {
  for (const { name, separator } of op.arrayQuery) {
    const value = query[name];
    if (value === undefined) continue;
    const values = typeof value === "string" ? [value] : value;
    (query as Record<string, string[]>)[name] = separator ? values.flatMap((v) => v.split(separator)) : values;
  }
}

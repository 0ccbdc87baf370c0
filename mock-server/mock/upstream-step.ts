/**
 * The pipeline's step in front of a real deployment (`--upstream`): a /v1 request routed `upstream`
 * or `fallback` goes to the upstream and its answer comes back unchanged (status, headers, body,
 * compression), with `X-Mock-Source`. Off the response path, the exchange is checked with the suite's
 * single-exchange rules (drift findings) and, with `--record`, the records it holds are kept (the
 * 17's by upstream/record.ts, those of the generic layer's collections by generic/recording.ts), what
 * they lack of the spec's record rule filled (store/record-rule.ts) and told once per collection.
 * `fallback` serves the mock when the upstream gives no answer or a gateway error.
 */
import { variantCatalogue } from "../core/coverage/catalogue.js";
import { observedVariants } from "../core/coverage/observe.js";
import { ApiError } from "../core/errors.js";
import type * as DriftRules from "../core/exchange-rules/drift.js";
import {
  UpstreamFailure,
  type AnswerSource,
  type BodyReader,
  type CoreReply,
  type ForwardedBody,
  type RequestHead,
  type UpstreamAnswer,
  type UpstreamTransport,
} from "../core/exchange.js";
import type { Contract } from "../core/contract.js";
import type { Operation } from "../core/operations.js";
import type { CapturedExchange } from "../store/journal.js";
import { recordCheck } from "../store/record-checks.js";
import type { Store } from "../store/store.js";
import type { Workspace } from "../store/workspace.js";
import type { DriftLog, RecordedExchange } from "../upstream/drift-log.js";
import { requestIdOf } from "./exchange-record.js";
import { applyRecorded, recordedChanges, type SettleRecord } from "../upstream/record.js";
import type { FilledField } from "../store/record-rule.js";
import { applyGenericRecorded, genericRecordedChanges } from "../generic/recording.js";
import { handlers } from "../routes/index.js";
import type { Redactor } from "../upstream/redact.js";
import type { RouteModes } from "../upstream/route-modes.js";
import { endToEnd } from "../upstream/hop-by-hop.js";

/** Everything the pipeline needs to stand in front of an upstream. */
export interface InFront {
  transport: UpstreamTransport;
  modes: RouteModes;
  /** The workspace the mock serves from (and records into), whatever key the client sent. */
  workspaceId: string;
  record: boolean;
  drift: DriftLog;
  redactor: Redactor;
  /**
   * The suite's single-exchange rules (core/exchange-rules/drift.ts), loaded by the door when first
   * needed: they compile validators at run time, which the MSW door's default bundle must not carry.
   */
  rules: () => Promise<typeof DriftRules>;
  /** Settles once the door's workspace exists (a `--record` workspace is made at start). */
  ready: Promise<unknown>;
  /** Adds the response variants an upstream's answer showed to the workspace's coverage (the journal's). */
  coverage: (workspaceId: string, keys: readonly string[]) => void | Promise<void>;
  /** This door's name in Via headers (RFC 9110, 7.6.3): a request that already passed it is a loop. */
  via: string;
}

/** Gateway errors a `fallback` operation answers from the mock instead. */
const GATEWAY_ERRORS = new Set([502, 503, 504]);

export interface ForwardInput {
  head: RequestHead;
  /** The path as the client sent it (mount included), for error bodies. */
  path: string;
  op: Operation;
  contract: Contract;
  pathParams: Record<string, string>;
  query: Record<string, string | string[]>;
  workspace: Workspace;
  readBody: BodyReader;
  /** Serves the request from the mock, reading the body through the reader given. */
  serveMock: (readBody: BodyReader) => Promise<CoreReply>;
  /** Told the request body the door copied, for the journal's captured exchange (the HAR export). */
  sawBody?: (body: CapturedExchange["requestBody"]) => void;
}

export interface Forwarded {
  reply: CoreReply;
  source: AnswerSource;
  /** Why the mock answered a `fallback` operation, for the log. */
  fellBack?: string;
}

export async function forward(inFront: InFront, store: Store, input: ForwardInput): Promise<Forwarded> {
  const { head, op } = input;
  const mode = inFront.modes.modeOf(op.operationId);
  inFront.redactor.rememberHeaders(head.headers);
  const via = [head.headers.via ?? []].flat().join(", ");
  if (via.includes(inFront.via))
    throw new ApiError(
      502,
      `Upstream ${inFront.transport.target} forwards back to this mock (Via: ${via}): --upstream must name the deployment, not a way back here`,
    );
  const read = head.hasBody ? await input.readBody({ kind: "forward", limit: FORWARD_COPY_LIMIT }) : undefined;
  const body = read?.kind === "forward" ? read.body : undefined;
  // Read once, as the copy settles (the client has sent it all, mostly long before the upstream answers):
  // the journal gets it then, without the answer waiting for it, and the checks after the answer use it.
  const copied = body?.copy.then(bodyOfCopy, () => NOTHING_COPIED);
  if (copied && input.sawBody) void copied.then(({ captured }) => input.sawBody!(captured));
  let answer: UpstreamAnswer;
  try {
    answer = await inFront.transport.forward({
      method: head.method,
      url: head.url,
      headers: { ...head.headers, via: via ? `${via}, 1.1 ${inFront.via}` : `1.1 ${inFront.via}` },
      body,
    });
  } catch (error) {
    if (!(error instanceof UpstreamFailure)) throw error;
    if (mode === "fallback") return fallBack(input, body, `${inFront.transport.target}: ${error.message}`);
    throw new ApiError(
      error.kind === "timeout" ? 504 : 502,
      `Upstream ${inFront.transport.target} ${error.kind === "timeout" ? "did not answer in time" : "gave no answer"}: ${inFront.redactor.text(error.message)}`,
    );
  }
  if (mode === "fallback" && GATEWAY_ERRORS.has(answer.status))
    return fallBack(input, body, `${inFront.transport.target} answered ${answer.status}`);
  // The answer's journal entry and its drift findings share its X-Request-Id (GET /__mock/requests/{id}):
  // one the upstream did not send is given here, before both see the headers.
  if (answer.headers["x-request-id"] === undefined) answer.headers["x-request-id"] = requestIdOf(head);
  // After the answer is written: the checks cost the client nothing, not even a microtask's turn.
  inFront.drift.track(
    new Promise<void>((resolve) => later(() => resolve())).then(() =>
      afterAnswer(inFront, store, input, copied, answer),
    ),
  );
  return { reply: replyOf(answer), source: "upstream" };
}

/** JSON bodies are copied for the checks up to this size; past it they are forwarded unchecked. */
export const FORWARD_COPY_LIMIT = 1024 * 1024;

async function fallBack(input: ForwardInput, body: ForwardedBody | undefined, why: string): Promise<Forwarded> {
  const copy = body ? await body.copy : undefined;
  const replay: BodyReader = async (want) => {
    if (want.kind === "json" && copy?.kind === "json") return { kind: "json", text: copy.text ?? "" };
    if (want.kind === "multipart" && copy?.kind === "multipart") return { kind: "multipart", parts: copy.parts };
    return want.kind === "multipart" ? { kind: "multipart", parts: [] } : { kind: "json", text: "" };
  };
  return { reply: await input.serveMock(replay), source: "fallback", fellBack: why };
}

function replyOf(answer: UpstreamAnswer): CoreReply {
  // Content-Length is the door's to write (node:http measures the body); several Set-Cookie lines stay
  // several (node:http writes an array as one line each), other repeats join as one.
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(endToEnd(answer.headers, ["content-length"])))
    headers[name] = (Array.isArray(value) && name === "set-cookie" ? value : [value].flat().join(", ")) as string;
  return { status: answer.status, headers, body: answer.body.length > 0 ? answer.body : undefined };
}

/** The door's copy of a request body: its JSON (when it was JSON, copied whole), as the journal captures it. */
interface CopiedBody {
  json: unknown;
  captured: CapturedExchange["requestBody"];
}

const NOTHING_COPIED: CopiedBody = { json: undefined, captured: undefined };

function bodyOfCopy(copy: Awaited<ForwardedBody["copy"]>): CopiedBody {
  if (copy.kind === "multipart") return { json: undefined, captured: { form: copy.parts } };
  const json = parseJson(copy.text);
  return { json, captured: json === undefined ? undefined : { json } };
}

/** Off the response path: the drift checks, then the recording. */
async function afterAnswer(
  inFront: InFront,
  store: Store,
  input: ForwardInput,
  copied: Promise<CopiedBody> | undefined,
  answer: UpstreamAnswer,
): Promise<void> {
  const { head, op, contract, workspace } = input;
  const { redactor } = inFront;
  // A form's parts are no JSON: the request's body is judged only when it was JSON and copied whole.
  const requestJson = (await copied)?.json;
  const text = (await answer.text()) ?? "";
  const json = parseJson(text);
  // The upstream's answers count for the workspace's coverage as the mock's do (pipeline.ts variantsOf).
  const catalogue = variantCatalogue(contract.document);
  const observed = { operationId: op.operationId, status: answer.status, query: input.query, body: json };
  await inFront.coverage(workspace.workspaceId, observedVariants(catalogue, observed));
  const contentType = [head.headers["content-type"]].flat()[0];
  const { requestFindings, responseFindings } = await inFront.rules();
  const findings = [
    ...requestFindings(contract.document, {
      operationId: op.operationId,
      method: head.method,
      path: input.path,
      pathParams: input.pathParams,
      query: input.query,
      contentType,
      body: requestJson,
    }),
    ...responseFindings(contract.document, {
      operationId: op.operationId,
      status: answer.status,
      headers: { get: (name) => [answer.headers[name.toLowerCase()] ?? []].flat().join(", ") || null },
      text,
      json,
      request: { method: head.method, path: input.path, basePath: head.base, query: input.query },
    }),
  ];
  if (findings.length > 0) {
    // Values under secret fields are scrubbed from messages too (a finding quotes what it found).
    redactor.rememberSecretsIn(requestJson);
    redactor.rememberSecretsIn(json);
    const exchange: RecordedExchange = {
      request: {
        method: head.method,
        url: redactor.url((head.base ?? "") + head.url),
        headers: redactor.headers(head.headers),
        ...(requestJson !== undefined && { body: redactor.json(requestJson) }),
      },
      response: {
        status: answer.status,
        headers: redactor.headers(answer.headers),
        ...(json !== undefined ? { body: redactor.json(json) } : text && { body: redactor.text(text) }),
      },
    };
    const at = workspace.clock.iso();
    for (const finding of findings)
      inFront.drift.add({
        at,
        operationId: op.operationId,
        workspaceId: workspace.workspaceId,
        ...finding,
        message: redactor.text(finding.message),
        exchange,
      });
  }
  if (!inFront.record) return;
  const answered = {
    operationId: op.operationId,
    status: answer.status,
    pathParams: input.pathParams,
    requestBody: requestJson,
    json,
  };
  // The 17's records go to their collections; those of an operation the generic layer serves, to its.
  const changes = recordedChanges(answered);
  const handled = (id: string) => contract.handwritten && Object.hasOwn(handlers, id);
  const genericChanges = genericRecordedChanges(contract, answered, handled);
  if (changes.length === 0 && genericChanges.length === 0) return;
  const check = recordCheck(contract);
  // Loaded as the drift rules are (it compiles validators): only by a door that records.
  const { recordRuler } = await import("../store/record-rule.js");
  const ruler = recordRuler(contract.document);
  const settle: SettleRecord = (schema, record, errors, full) => ruler.settle(schema, record, errors, full);
  const outcome = await store.transactBackground(workspace, () => {
    const kept = applyRecorded(workspace, changes, check, redactor, settle);
    const generic = applyGenericRecorded(workspace, genericChanges, redactor, settle);
    return { refused: [...kept.refused, ...generic.refused], filled: [...kept.filled, ...generic.filled] };
  });
  tellFilled(inFront.drift, outcome.filled);
  for (const refused of outcome.refused)
    inFront.drift.note(
      `not recorded: ${refused.collection} ${redactor.text(refused.id)} fails the spec (${Object.entries(refused.errors)
        .map(([k, v]) => `${k} ${v}`)
        .join("; ")})`,
    );
}

/** The collections whose filled records a drift log has told, so each is told once (not per record). */
const toldFilled = new WeakMap<DriftLog, Set<string>>();

/**
 * One console line per collection, the first time the record rule filled its records: which fields the
 * upstream left out (all those this answer's records lacked) and what they got. Field names only, no values.
 */
function tellFilled(drift: DriftLog, filled: { collection: string; fields: FilledField[] }[]): void {
  let told = toldFilled.get(drift);
  if (!told) toldFilled.set(drift, (told = new Set()));
  const fresh = new Map<string, Map<string, FilledField["value"]>>();
  for (const { collection, fields } of filled) {
    if (told.has(collection)) continue;
    const paths = fresh.get(collection) ?? new Map<string, FilledField["value"]>();
    for (const field of fields) paths.set(field.path, field.value);
    fresh.set(collection, paths);
  }
  for (const [collection, paths] of fresh) {
    told.add(collection);
    const values = [...new Set([...paths.values()].map((v) => JSON.stringify(v)))].join(", ");
    drift.note(
      `recording: ${collection} from the upstream lacked ${[...paths.keys()].join(", ")}; filled as the spec's record rule says (${values})`,
    );
  }
}

/** The next turn of the event loop, after the I/O under way (the answer being written). */
const later: (run: () => void) => void = globalThis.setImmediate ?? ((run) => setTimeout(run, 0));

function parseJson(text: string | undefined): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

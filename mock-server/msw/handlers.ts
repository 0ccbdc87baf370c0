/**
 * The MSW door: MSW 2 request handlers that serve every /v1 operation and the /__mock control plane
 * at `baseUrl` from an in-page mock, through the same core as the server. In the browser
 * (`setupWorker`) and in Node (`setupServer`, jsdom included). Nothing on this path needs Node: the
 * spec and the validators come in as modules, hashing and signing use Web Crypto, and the seeded
 * world is built where the handlers run.
 *
 *   const { handlers } = createMockHandlers({ baseUrl: "https://api.example.com" });
 *   setupServer(...handlers).listen();
 *
 * Another OpenAPI document (`spec`: the parsed document, or its JSON or YAML text) is served at
 * `baseUrl` + its first server URL's path by the generic layer alone. Its validators are compiled in
 * the page (a chunk loaded only then: ajv evaluates generated code, so a page under a CSP without
 * 'unsafe-eval' serves the bundled spec only); requests wait for it (`ready`).
 */
import { http } from "msw";
import type { ClockMode, ClockOptions } from "../core/clock.js";
import {
  bodyTooLarge,
  contentCoding,
  malformedCompression,
  unsupportedEncoding,
  type ContentCoding,
} from "../core/body.js";
import { ApiError } from "../core/errors.js";
import type { EventReader } from "../core/events.js";
import type { GeneratedSpec, OpenApiDocument } from "../core/spec.js";
import { basePathOf, normalizeDocument } from "../core/openapi-document.js";
import {
  trickledPieces,
  type BodyRequest,
  type FormPart,
  type RequestBody,
  type RequestHead,
  type RequestLogEntry,
} from "../core/exchange.js";
import { createMock, DEFAULT_API_KEY, isGeneratedSpec, type Mock, type UpstreamSetup } from "../mock/mock.js";
import type { RouteTable } from "../upstream/route-modes.js";
import type { Scenario } from "../store/workspace.js";
import { fetchForwardedBody, fetchUpstream } from "./upstream-transport.js";
import { targetOf } from "./request-target.js";
import { isTextFieldPart, MAX_FIELD_BYTES, SNIFF_BYTES, textFieldValue } from "../core/uploads.js";
import { sha256 } from "../core/portable-crypto.js";
import type { Sha256 } from "../store/registry.js";

export interface MockHandlersOptions {
  /** Where the API is served; its path (if any) prefixes /v1 and /__mock. Default http://127.0.0.1:4010. */
  baseUrl?: string;
  /** The default workspace's key. Default mock-api-key, as `npm start`. */
  apiKey?: string;
  /** Faker seed of the default workspace. Default 1. */
  seed?: number;
  /** The /__mock control plane then needs `Authorization: Bearer <controlToken>` or a workspace's key, as `--control-token`. */
  controlToken?: string;
  /** Seed the default workspace with this scenario instead of the usual world ("every-variant"), as `--scenario`. */
  scenario?: Scenario;
  /** "real" (default, as `npm start`) or "virtual" (moves only on POST /__mock/clock/advance), or full clock options. */
  clock?: ClockMode | ClockOptions;
  /** Check every reply against the spec. Default true, as in development. */
  validateResponses?: boolean;
  /** Where the mock's internal errors are told. Default console.error. */
  log?: (line: string) => void;
  /** Told of every answered request (method, path, status, ms, operationId, workspaceId, faultId): a request log. */
  onRequest?: (entry: RequestLogEntry) => void;
  /**
   * The spec to serve. Default: the bundled one. A GeneratedSpec: a spec with its validators (as
   * `npm run generate` writes them, or compileSpec makes them from a document). Another OpenAPI 3.0 or
   * 3.1 document, parsed or as its JSON or YAML text: served by the generic layer alone, under
   * `baseUrl` + its first server URL's path, once compiled (`ready`).
   */
  spec?: GeneratedSpec | object | string;
  /**
   * Stand in front of this deployment (its base URL): /v1 requests are fetched from it (MSW's bypass),
   * checked for drift (console and GET /__mock/drift) and, with `record`, recorded.
   */
  upstream?: string;
  /** Sent to the upstream as X-API-Key in place of the app's key. */
  upstreamApiKey?: string;
  /** Milliseconds the upstream may take (default 30000): 504 after. */
  upstreamTimeoutMs?: number;
  /** Per operation, upstream (default), mock or fallback: a table, or `OP=MODE,...`. */
  route?: RouteTable | string;
  /** Keep the records the upstream returns in a workspace: its id, or true for `recorded`. */
  record?: string | boolean;
}

export interface MockHandlers {
  handlers: ReturnType<typeof http.all>[];
  /** The mock behind the handlers: its services, journal and close(). */
  mock: Mock;
  /** Settles once the spec is compiled and served (at once for the bundled one); rejects when it cannot be. */
  ready: Promise<void>;
}

/**
 * Another document as the MSW door serves it: a spec with no operations at once (the mock is made
 * synchronously), and the compiled one, made in a chunk of its own. A document object is checked here
 * and now (a Swagger 2.0 one throws at once); text is parsed in that chunk too (YAML's parser with it).
 */
function documentSpec(given: object | string): { placeholder: GeneratedSpec; compiled: Promise<GeneratedSpec> } {
  const document = typeof given === "string" ? undefined : normalizeDocument(given);
  const placeholder: GeneratedSpec = {
    document: { openapi: "3.1.0", info: { title: "", version: "" }, paths: {} } as unknown as OpenApiDocument,
    validators: { operationValidators: {}, schemaValidators: {} } as unknown as GeneratedSpec["validators"],
    origin: { kind: "document", basePath: document ? basePathOf(document) : "" },
  };
  const compiled = (async () => {
    const { compileSpec } = await import("../core/compile-spec.js");
    if (typeof given !== "string") return compileSpec(document);
    const { parseDocumentText } = await import("../core/document-text.js");
    return compileSpec(parseDocumentText(given, "the spec given to createMockHandlers"));
  })();
  return { placeholder, compiled };
}

export const DEFAULT_BASE_URL = "http://127.0.0.1:4010";

const utf8 = new TextEncoder();

/**
 * API keys hashed in plain JavaScript, synchronously: a key is one or two SHA-256 blocks (about 3 µs),
 * where Web Crypto's digest costs a promise and a crypto job per request (about 11 µs in Node, and a
 * tenth of the door's time under load). The same digests (portable-crypto.test.ts). The last key's
 * digest is kept, as a page sends one key again and again; the key given is compared with it in a time
 * that depends on the given key's length only, so that the kept key cannot be guessed from timings.
 */
function syncSha256(): Sha256 {
  let lastText: string | undefined;
  let lastDigest: Uint8Array | undefined;
  return (text) => {
    if (lastText !== undefined && sameText(lastText, text)) return lastDigest!.slice();
    const digest = sha256(utf8.encode(text));
    lastText = text;
    lastDigest = digest.slice();
    return digest;
  };
}

function sameText(kept: string, given: string): boolean {
  let diff = kept.length ^ given.length;
  // Past the kept key's end charCodeAt gives NaN, which | and ^ take as 0; the lengths already differ.
  for (let i = 0; i < given.length; i++) diff |= kept.charCodeAt(i) ^ given.charCodeAt(i);
  return diff === 0;
}

export function createMockHandlers(options: MockHandlersOptions = {}): MockHandlers {
  const base = new URL(options.baseUrl ?? DEFAULT_BASE_URL);
  const prefix = base.pathname.replace(/\/+$/, "");
  const clock = options.clock ?? "real";
  const other = options.spec !== undefined && !isGeneratedSpec(options.spec) ? documentSpec(options.spec) : undefined;
  const spec = other ? other.placeholder : (options.spec as GeneratedSpec | undefined);
  const mock = createMock({
    apiKey: options.apiKey ?? DEFAULT_API_KEY,
    seed: options.seed ?? 1,
    ...(options.scenario && { scenario: options.scenario }),
    ...(options.controlToken && { controlToken: options.controlToken }),
    clock: typeof clock === "string" ? { mode: clock } : clock,
    validateResponses: options.validateResponses ?? true,
    sha256: syncSha256(),
    ...(options.log && { log: options.log }),
    ...(options.onRequest && { onRequest: options.onRequest }),
    ...(spec && { spec }),
    ...(options.upstream && { upstream: upstreamSetup(options) }),
  });

  const ready = other ? other.compiled.then((compiled) => void mock.installSpec(compiled)) : Promise.resolve();
  // Told once; each request waiting on a spec that failed answers 500 with the reason.
  ready.catch((error: Error) => (options.log ?? console.error)(`the spec cannot be served: ${error.message}`));
  let compiling = other !== undefined;
  const answer = (request: Request): Promise<Response> => {
    const { path, host } = targetOf(request.url, base, prefix);
    const head: RequestHead = {
      method: request.method,
      url: path,
      // fetch sends no Host header (a forbidden name); the URL's host is what a server would have got.
      headers: headersOf(request.headers, host),
      hasBody: request.body !== null,
      base: prefix,
    };
    return mock.core
      .handle(head, (want) => readBody(request, want))
      .then((reply) => {
        // A fault rule's reset: the fetch fails as on a dropped connection.
        if (reply.reset) return Response.error();
        if (reply.events)
          return new Response(eventStream(reply.events), { status: reply.status, headers: reply.headers });
        const empty = request.method === "HEAD" || reply.status === 204 || reply.body === undefined;
        const body = empty ? null : reply.trickleMs ? trickled(reply.body!, reply.trickleMs) : (reply.body as BodyInit);
        return new Response(body, { status: reply.status, headers: reply.headers });
      });
  };
  // No async function on the way of a request once the spec is in: each would be one more promise to settle.
  const serve = ({ request }: { request: Request }): Promise<Response> =>
    compiling ? afterCompiling(request) : answer(request);
  const afterCompiling = async (request: Request): Promise<Response> => {
    try {
      await ready;
      compiling = false;
    } catch (error) {
      return Response.json({ message: `the spec cannot be served: ${(error as Error).message}` }, { status: 500 });
    }
    return answer(request);
  };
  // `${origin}${prefix}/*` and the prefix itself: every path the server would answer, 404s included.
  const handlers = [http.all(`${base.origin}${prefix}/*`, serve)];
  if (prefix) handlers.push(http.all(`${base.origin}${prefix}`, serve));
  return { handlers, mock, ready };
}

/** GET /__mock/events: the reader's chunks, pulled as the page reads them; a cancel closes the reader. */
function eventStream(reader: EventReader): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const chunk = await reader.next();
      if (chunk === undefined) controller.close();
      else controller.enqueue(encoder.encode(chunk));
    },
    cancel: () => reader.close(),
  });
}

/** A fault rule's slow: the body as a stream whose pieces arrive spread over `ms`. */
function trickled(body: string | Uint8Array, ms: number): ReadableStream<Uint8Array> {
  const pieces = trickledPieces(body);
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      await new Promise((resolve) => setTimeout(resolve, ms / pieces.length));
      controller.enqueue(pieces[sent++]);
      if (sent === pieces.length) controller.close();
    },
  });
}

/** The request's headers after `host` (a request's own Host header, where one is given, wins). */
function headersOf(headers: Headers, host: string): Record<string, string> {
  const out: Record<string, string> = { host };
  headers.forEach((value, name) => void (out[name] = value));
  return out;
}

function upstreamSetup(options: MockHandlersOptions): UpstreamSetup {
  return {
    transport: fetchUpstream({
      url: options.upstream!,
      apiKey: options.upstreamApiKey,
      timeoutMs: options.upstreamTimeoutMs,
    }),
    route: options.route,
    record: options.record,
    secrets: options.upstreamApiKey ? [options.upstreamApiKey] : [],
    // A chunk of its own for bundlers that split: the page without an upstream never loads a schema compiler.
    rules: () => import("../core/exchange-rules/drift.js"),
  };
}

async function readBody(request: Request, want: BodyRequest): Promise<RequestBody> {
  if (want.kind === "forward")
    return {
      kind: "forward",
      body: fetchForwardedBody(request, async (copy) =>
        (copy.headers.get("content-type") ?? "").toLowerCase().startsWith("multipart/form-data")
          ? { kind: "multipart", parts: await readForm(copy).catch(() => [] as FormPart[]) }
          : { kind: "json", text: await readText(copy, want.limit).catch(() => undefined) },
      ),
    };
  if (want.kind === "multipart") return { kind: "multipart", parts: await readForm(request) };
  return { kind: "json", text: await readText(request, want.limit) };
}

/** DecompressionStream formats; Node 20's has no Brotli, so a `br` body is refused like an unknown coding. */
const INFLATERS: Partial<Record<ContentCoding, CompressionFormat>> = { gzip: "gzip", deflate: "deflate" };

/** The body as UTF-8 text, inflated first when compressed, refused with 413 once it passes `limit`. */
async function readText(request: Request, limit: number): Promise<string> {
  if (Number(request.headers.get("content-length")) > limit) throw bodyTooLarge(limit);
  const coding = contentCoding(request.headers.get("content-encoding") ?? undefined);
  let stream: ReadableStream<Uint8Array> | null = request.body;
  if (!stream) return "";
  if (coding !== "identity") {
    const format = INFLATERS[coding];
    if (!format) throw unsupportedEncoding();
    stream = stream.pipeThrough(
      new DecompressionStream(format) as unknown as ReadableWritablePair<Uint8Array, Uint8Array>,
    );
  }
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      received += value.length;
      if (received > limit) {
        void reader.cancel();
        throw bodyTooLarge(limit);
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw malformedCompression();
  }
  const all = new Uint8Array(received);
  let at = 0;
  for (const chunk of chunks) all.set(chunk, (at += chunk.length) - chunk.length);
  return new TextDecoder().decode(all);
}

/** The form's parts in order; a file keeps its name, size and first bytes (the core's rules need no more). */
async function readForm(request: Request): Promise<FormPart[]> {
  let form: FormData;
  try {
    form = await request.formData();
  } catch (error) {
    throw new ApiError(400, `Malformed multipart body: ${(error as Error).message}`);
  }
  const entries: [string, FormDataEntryValue][] = [];
  form.forEach((value, name) => void entries.push([name, value]));
  const parts: FormPart[] = [];
  for (const [name, value] of entries) {
    if (typeof value === "string") parts.push({ name, value });
    // A text field a generated client sent as a Blob (a part with a filename): the field, read whole.
    else if (isTextFieldPart(name, value.type))
      parts.push(
        value.size > MAX_FIELD_BYTES
          ? { name, value: "", truncated: true }
          : textFieldValue(name, new Uint8Array(await value.arrayBuffer())),
      );
    else
      parts.push({
        name,
        file: {
          filename: value.name,
          bytes: value.size,
          head: new Uint8Array(await value.slice(0, SNIFF_BYTES).arrayBuffer()),
        },
      });
  }
  return parts;
}

/**
 * The core's boundary: what a door hands in and what it gets back. A door (node:http, Express, MSW)
 * turns its transport's request into a RequestHead, reads the body only when the core asks for it
 * (after routing and the API key, so a refused upload is never read), and writes the CoreReply back.
 */
import type { Contract } from "./contract.js";
import type { EventReader } from "./events.js";
import type { FaultKind } from "./faults.js";

export interface RequestHead {
  /** As sent, upper case: GET, POST, ... */
  method: string;
  /** Path and query relative to where the mock is mounted, as sent: `/v1/calls?page=0`. */
  url: string;
  /** Header names in lower case. */
  headers: Record<string, string | string[] | undefined>;
  /** Whether the request carries a body (Content-Length > 0, chunked, or a fetch body). */
  hasBody: boolean;
  /** The mount path the client saw before `url` (`/mock` under `parent.use("/mock", ...)`): error bodies report the whole path. */
  base?: string;
}

/** One part of a multipart/form-data body, as a door parsed it. */
export type FormPart = { name: string; value: string; truncated?: boolean } | { name: string; file: UploadedFilePart };

export interface UploadedFilePart {
  /** "" for a file input left empty. */
  filename: string;
  /** Size of the whole file. */
  bytes: number;
  /** Its first bytes (up to SNIFF_BYTES), for the content checks. */
  head: Uint8Array;
}

export type RequestBody =
  | { kind: "none" }
  /** Decoded (and, where the door supports it, inflated) UTF-8 text; the core parses it. */
  | { kind: "json"; text: string }
  | { kind: "multipart"; parts: FormPart[] }
  | { kind: "forward"; body: ForwardedBody };

/**
 * What the core asks a door to read. The door enforces `limit` as the bytes arrive (413 at the limit).
 * `forward`: the body goes on to the upstream as the client sent it (streamed, not held whole), while
 * the door reads a copy for the drift checks and for the mock should the upstream fail.
 */
export type BodyRequest = { kind: "json"; limit: number } | { kind: "multipart" } | { kind: "forward"; limit: number };

/** A body on its way to the upstream. */
export interface ForwardedBody {
  /** The bytes as the client sent them, in the form the door's transport sends (opaque to the core). */
  readonly stream: unknown;
  /**
   * The door's copy, read while the body streams on: JSON text (inflated; undefined past `limit` or
   * unreadable), or the form's parts (files reduced to their first bytes). Settles once the client sent it all.
   */
  readonly copy: Promise<{ kind: "json"; text: string | undefined } | { kind: "multipart"; parts: FormPart[] }>;
}

/** Where an answer in front of a real deployment came from: `X-Mock-Source`, and the journal's `source`. */
export type AnswerSource = "upstream" | "mock" | "fallback";

/** A /v1 request a door's transport sends to the upstream. */
export interface UpstreamRequest {
  method: string;
  /** Path and query relative to the API's base (`/v1/calls?page=0`); the transport joins it to the upstream's URL. */
  url: string;
  /** As the client sent them (lower-case names); the transport drops hop-by-hop headers and sets Host. */
  headers: Record<string, string | string[] | undefined>;
  body?: ForwardedBody;
}

/** The upstream's answer, whole: headers as sent (lower case), body as sent (still compressed if it was). */
export interface UpstreamAnswer {
  status: number;
  headers: Record<string, string | string[]>;
  body: Uint8Array;
  /** The body as text with its Content-Encoding undone, for the checks; undefined when it cannot be. */
  text(): Promise<string | undefined>;
}

/** Why the upstream gave no answer: 504 for `timeout`, 502 for the others. */
export type UpstreamFailureKind = "unreachable" | "tls" | "timeout" | "cut";

export class UpstreamFailure extends Error {
  constructor(
    readonly kind: UpstreamFailureKind,
    message: string,
  ) {
    super(message);
  }
}

/** How a door reaches the upstream (node/upstream-transport.ts with undici, msw/ with MSW's bypass). */
export interface UpstreamTransport {
  /** `host:port` of the upstream, for messages. */
  readonly target: string;
  /** Rejects with an UpstreamFailure only; never hangs past the transport's timeout. */
  forward(request: UpstreamRequest): Promise<UpstreamAnswer>;
}

/** Reads the body the core asks for; rejects with an ApiError (413, 400, 408) when the stream fails. */
export type BodyReader = (request: BodyRequest) => Promise<RequestBody>;

export interface CoreReply {
  status: number;
  headers: Record<string, string>;
  /** Exactly the bytes to send (text, or bytes for a static asset); undefined for no body. */
  body?: string | Uint8Array;
  /** The body's UTF-8 length, when the core knows it without measuring. */
  bytes?: number;
  /** A fault rule's `reset`: destroy the connection (a network error under MSW) instead of answering. */
  reset?: true;
  /** A fault rule's `slow`: send the body in pieces spread over this many milliseconds. */
  trickleMs?: number;
  /**
   * GET /__mock/events: no body, but a stream of server-sent events the door writes as the reader yields
   * them, pulling the next chunk only once the last was taken (so a slow client leaves them in the reader,
   * which is bounded); the door closes the reader when the client goes.
   */
  events?: EventReader;
}

/** A file the docs site serves (GET /docs, GET /docs/{file}) or the dashboard's (GET /__mock/ui). */
export interface StaticFile {
  contentType: string;
  body: string | Uint8Array;
  /** Extra headers (Cache-Control, Content-Security-Policy). */
  headers?: Record<string, string>;
}

/**
 * The docs site: `file` is "" for /docs itself; `contract` is the spec the mock serves now, which the
 * pages and specs show. Only the Node doors bring one (its assets live in node_modules).
 */
export type DocsSite = (file: string, contract: Contract) => StaticFile | undefined;

/**
 * The dashboard's page and script (GET /__mock/ui, /__mock/ui/{file}): `file` is "" for the page. Only
 * the Node doors bring one; under MSW, mountDashboard renders the same views in the app's own page.
 */
export type DashboardSite = (file: string) => StaticFile | undefined | Promise<StaticFile | undefined>;

/** One line of the request log (`--log-format`), told when a request is answered. */
export interface RequestLogEntry {
  method: string;
  /** The path as sent (mount path included), without the query. */
  path: string;
  /** null when a fault rule destroyed the connection instead of answering. */
  status: number | null;
  durationMs: number;
  /** The operation of the spec (or of spec/mock-control.yaml) the request was routed to, or null. */
  operationId: string | null;
  workspaceId: string | null;
  /** The fault rule applied to the request, or null. */
  faultId: string | null;
  /** What that rule did (status, reset, empty, slow), or null: the metrics count rules applied by kind. */
  faultKind: FaultKind | null;
  /** In front of an upstream: where the answer came from. */
  source?: AnswerSource;
  /** The W3C trace context the client sent (its `traceparent` header), for a span that continues its trace. */
  traceparent?: string;
}

/** A body cut into the pieces a `slow` fault sends one by one (up to ten, on byte boundaries). */
export function trickledPieces(body: string | Uint8Array): Uint8Array[] {
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
  const count = Math.max(1, Math.min(10, bytes.length));
  const size = Math.ceil(bytes.length / count);
  const pieces: Uint8Array[] = [];
  for (let at = 0; at < bytes.length || pieces.length === 0; at += size) pieces.push(bytes.subarray(at, at + size));
  return pieces;
}

/** What a handler answers: the core sends it and validates it against the spec. */
export interface Reply {
  status: number;
  body?: unknown;
  /** The control plane's event stream (GET /__mock/events) instead of a body. */
  events?: EventReader;
  /**
   * A body that is not JSON, sent as it is: the control plane's Prometheus text, or an answer of
   * another document in a media type of its own (an image/png QR code).
   */
  text?: { contentType: string; body: string | Uint8Array };
}

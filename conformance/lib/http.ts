/**
 * The one way the suite talks to a target: every request goes through `send`, which records the
 * exchange (for the curl line of a failure and for coverage) and never throws on an HTTP status.
 */
import { readFileSync } from "node:fs";
import { rootCertificates } from "node:tls";
import { Agent, type Dispatcher } from "undici";
import { TargetUnreachable, type Answer } from "../transport/answer-kind.js";
import type { SendPolicy, Transport } from "../transport/transport.js";
import { placeCredential, type CredentialPlacement } from "./credentials.js";

export { TargetUnreachable };

export interface RequestSpec {
  method: string;
  /** Path with the query already appended is not allowed: give query separately so curl lines stay exact. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  /** JSON body (serialised here), a FormData for multipart, or a raw string. */
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  /** API key to send; null sends none. Defaults to the target's key. */
  key?: string | null;
  /** Where the key goes for this request (the operation's own security scheme); defaults to the target's. */
  credential?: CredentialPlacement;
}

/** One part of a multipart body as sent, with what it takes to send it again from a shell. */
export interface FormPart {
  name: string;
  /** A text field. */
  value?: string;
  file?: { filename: string; type: string; size: number; recipe: FileRecipe };
}

/** How a shell recreates a file: its bytes (small files), or one byte repeated (the large uploads). */
export type FileRecipe = { base64: string } | { fill: number } | { truncated: true };

export interface Exchange {
  request: {
    method: string;
    url: string;
    /** The URL's path, the base URL's path included. */
    path: string;
    /** The base URL's path ("" at the root, "/api" behind a prefix): error bodies may name paths relative to it. */
    basePath: string;
    headers: Record<string, string>;
    bodyText?: string;
    form?: FormPart[];
    /** TLS options of the run, repeated in curl lines. */
    tls?: TlsOptions;
    /** Where the credential went (not its value): a query key is left out of `url`, curl lines read it from $API_KEY. */
    credential?: CredentialPlacement;
  };
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON body, or undefined when the body is empty or not JSON. */
  json: unknown;
  durationMs: number;
}

export interface TlsOptions {
  /** --insecure: accept any certificate (a self-signed staging one). */
  insecure?: boolean;
  /** --ca FILE: trust this CA bundle (PEM) besides the system's. */
  caFile?: string;
}

/**
 * How a run reaches its target: the base URL with the run's certificate trust, pace and retries. Each
 * run makes its own and hands it to whatever sends for it (fixtures, control-plane clients, rules), so
 * runs in one process, against one base URL or several, never share a transport.
 */
export interface Connection {
  baseUrl: string;
  tls?: TlsOptions;
  /** Pacing and retries through the environment; without one, each request is sent once. */
  transport?: Transport;
  /** Sent as Authorization: Bearer to the mock's control plane (a mock started with --control-token). */
  controlToken?: string;
  /** Where the key goes, as the document's security scheme asks (--spec); X-API-Key without one. */
  credential?: CredentialPlacement;
}

/** A connection and the key a request is sent with. */
export interface Target extends Connection {
  apiKey: string;
  /** Called with every exchange, for journals and tests. */
  onExchange?: (exchange: Exchange) => void;
  timeoutMs?: number;
}

/**
 * One request and its whole answer (status, headers, text, JSON), through the connection's transport
 * when it has one (paced, retried through the environment), else sent once. Network failures are
 * TargetUnreachable.
 */
export async function fetchAnswer(
  connection: Connection,
  url: string,
  init: RequestInit,
  policy: Partial<SendPolicy> = {},
): Promise<Answer> {
  const { transport, tls } = connection;
  const method = (init.method ?? "GET").toUpperCase();
  const once = () => fetchOnce(url, init, tls, transport?.timeoutMs ?? 30_000);
  return transport
    ? transport.send({ method, describe: `${method} ${new URL(url).pathname}`, ...policy }, once)
    : once();
}

/** One attempt: the whole answer read, or TargetUnreachable when the network failed before or during it. */
async function fetchOnce(
  url: string,
  init: RequestInit,
  tls: TlsOptions | undefined,
  timeoutMs: number,
): Promise<Answer> {
  try {
    const response = await tlsFetch(url, { redirect: "manual", ...init, signal: AbortSignal.timeout(timeoutMs) }, tls);
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, json: parseJson(text) };
  } catch (error) {
    throw new TargetUnreachable(
      `${(init.method ?? "GET").toUpperCase()} ${url}: ${(error as Error).cause ?? (error as Error).message}`,
      { cause: error },
    );
  }
}

/** A body's JSON, or undefined when it is empty or not JSON. */
export function parseJson(text: string): unknown {
  try {
    return text.length > 0 ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Connection pools by TLS setting. A pool holds sockets, not anything of a run: runs with the same
 * setting may share one, as every run without TLS options shares Node's default agent.
 */
const dispatchers = new Map<string, Dispatcher>();

/** One connection pool per TLS setting; undefined (Node's default agent) when none is asked for. */
export function dispatcherFor(tls: TlsOptions | undefined): Dispatcher | undefined {
  if (!tls?.insecure && !tls?.caFile) return undefined;
  const key = `${tls.insecure ? 1 : 0}:${tls.caFile ?? ""}`;
  let dispatcher = dispatchers.get(key);
  if (!dispatcher) {
    // The CA is added to Node's own list, so public certificates stay trusted.
    const ca = tls.caFile ? [...rootCertificates, readFileSync(tls.caFile, "utf8")] : undefined;
    dispatcher = new Agent({ connect: { rejectUnauthorized: !tls.insecure, ...(ca ? { ca } : {}) } });
    dispatchers.set(key, dispatcher);
  }
  return dispatcher;
}

/** fetch with the run's TLS options (global fetch: FormData bodies stay Node's own). */
export function tlsFetch(url: string, init: RequestInit, tls: TlsOptions | undefined): Promise<Response> {
  const dispatcher = dispatcherFor(tls);
  return fetch(url, dispatcher ? ({ ...init, dispatcher } as RequestInit) : init);
}

export function buildUrl(baseUrl: string, path: string, query?: RequestSpec["query"]): string {
  const url = new URL(baseUrl.replace(/\/+$/, "") + path);
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
  return url.toString();
}

export async function send(target: Target, spec: RequestSpec, policy: Partial<SendPolicy> = {}): Promise<Exchange> {
  // `url` as recorded never holds the key: a query credential is added to the URL sent only.
  const url = buildUrl(target.baseUrl, spec.path, spec.query);
  let sentUrl = url;
  const { tls, transport } = target;
  const credential = spec.credential ?? target.credential;
  const headers: Record<string, string> = { Accept: "application/json", ...spec.headers };
  const key = spec.key === undefined ? target.apiKey : spec.key;
  if (key !== null && credential) {
    const withKey = new URL(url);
    placeCredential(credential, key, headers, withKey);
    sentUrl = withKey.toString();
  } else if (key !== null) headers["X-API-Key"] = key;
  let body: BodyInit | undefined;
  let bodyText: string | undefined;
  let form: FormPart[] | undefined;
  if (spec.rawBody !== undefined) {
    body = bodyText = spec.rawBody;
  } else if (spec.body instanceof FormData) {
    body = spec.body;
    form = await describeForm(spec.body);
  } else if (spec.body !== undefined) {
    body = bodyText = JSON.stringify(spec.body);
    headers["Content-Type"] ??= "application/json";
  }
  const timeoutMs = target.timeoutMs ?? transport?.timeoutMs ?? 30_000;
  const once = async (): Promise<Exchange> => {
    const started = performance.now();
    const answer = await fetchOnce(sentUrl, { method: spec.method, headers, body }, tls, timeoutMs);
    return {
      request: {
        method: spec.method,
        url,
        path: new URL(url).pathname,
        basePath: basePathOf(target.baseUrl),
        headers,
        bodyText,
        form,
        tls,
        ...(credential && key !== null ? { credential } : {}),
      },
      ...answer,
      durationMs: performance.now() - started,
    };
  };
  const exchange = transport
    ? await transport.send(
        { method: spec.method, describe: `${spec.method} ${new URL(url).pathname}`, ...policy },
        once,
      )
    : await once();
  target.onExchange?.(exchange);
  return exchange;
}

export function basePathOf(baseUrl: string): string {
  return new URL(baseUrl).pathname.replace(/\/+$/, "");
}

/** Files up to this size are repeated byte for byte in a curl line (base64); larger ones only when one byte repeated. */
const MAX_INLINE_FILE = 64 * 1024;

async function describeForm(form: FormData): Promise<FormPart[]> {
  const parts: FormPart[] = [];
  for (const [name, value] of form as unknown as Iterable<[string, FormDataEntryValue]>) {
    if (typeof value === "string") {
      parts.push({ name, value });
      continue;
    }
    const file = value as File;
    const bytes = new Uint8Array(await file.arrayBuffer());
    const recipe: FileRecipe =
      bytes.length <= MAX_INLINE_FILE
        ? { base64: Buffer.from(bytes).toString("base64") }
        : bytes.every((b) => b === bytes[0])
          ? { fill: bytes[0] }
          : { truncated: true };
    parts.push({
      name,
      file: { filename: file.name, type: file.type || "application/octet-stream", size: bytes.length, recipe },
    });
  }
  return parts;
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The header that carries the credential, and what a curl line shows in its place (none: `-u` sends it). */
function credentialHeader(credential: CredentialPlacement | undefined): { name: string; shown?: string } | undefined {
  if (!credential) return undefined;
  if (credential.type === "bearer") return { name: "Authorization", shown: "Bearer $API_KEY" };
  if (credential.type === "basic") return { name: "Authorization" };
  if (credential.in === "header") return { name: credential.name, shown: "$API_KEY" };
  if (credential.in === "cookie") return { name: "Cookie", shown: `${credential.name}=$API_KEY` };
  return undefined;
}

/** The URL for a shell; a query credential is appended as "$API_KEY" (the recorded URL never holds it). */
function credentialUrl(url: string, credential: CredentialPlacement | undefined): string {
  if (credential?.type !== "apiKey" || credential.in !== "query") return shellQuote(url);
  const separator = new URL(url).search ? "&" : "?";
  return `${shellQuote(`${url}${separator}`)}"${encodeURIComponent(credential.name)}=$API_KEY"`;
}

/**
 * A line of bash that sends the request again: the key is read from $API_KEY (double-quoted so the
 * shell expands it, never printed), files are created in a temporary directory first.
 */
export function curlLine(exchange: Exchange): string {
  const { method, url, headers, bodyText, form, tls, credential } = exchange.request;
  const setup: string[] = [];
  const parts = ["curl -sS -i"];
  if (tls?.insecure) parts.push("-k");
  if (tls?.caFile) parts.push("--cacert", shellQuote(tls.caFile));
  parts.push("-X", method, credentialUrl(url, credential));
  if (credential?.type === "basic") parts.push("-u", '"$API_KEY"');
  const keyHeader = credentialHeader(credential);
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (lower === "accept") continue;
    if (keyHeader && lower === keyHeader.name.toLowerCase()) {
      if (keyHeader.shown) parts.push("-H", `"${name}: ${keyHeader.shown}"`);
      continue;
    }
    parts.push("-H", !keyHeader && lower === "x-api-key" ? `"${name}: $API_KEY"` : shellQuote(`${name}: ${value}`));
  }
  if (bodyText !== undefined) parts.push("--data-raw", shellQuote(bodyText));
  (form ?? []).forEach((part, i) => {
    if (part.value !== undefined) return void parts.push("--form-string", shellQuote(`${part.name}=${part.value}`));
    const { filename, type, size, recipe } = part.file!;
    if (setup.length === 0) setup.push("d=$(mktemp -d)");
    const target = `"$d/${i}"`;
    if ("base64" in recipe) setup.push(`printf %s ${shellQuote(recipe.base64)} | base64 -d > ${target}`);
    else if ("fill" in recipe)
      setup.push(`head -c ${size} /dev/zero | tr '\\0' '\\${recipe.fill.toString(8).padStart(3, "0")}' > ${target}`);
    else setup.push(`head -c ${size} /dev/urandom > ${target} # not the bytes sent: only their size`);
    // curl's -F syntax: the file is read from $d/i, sent as filename with type; quoted for the shell as one word.
    parts.push("-F", `${shellQuote(`${part.name}=@`)}"$d/${i}"${shellQuote(`;filename=${filename};type=${type}`)}`);
  });
  return [...setup, parts.join(" ")].join(" && ");
}

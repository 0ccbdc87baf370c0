/**
 * The one way the suite talks to a target: every request goes through `send`, which records the
 * exchange (for the curl line of a failure and for coverage) and never throws on an HTTP status.
 */
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
}

export interface Exchange {
  request: { method: string; url: string; path: string; headers: Record<string, string>; bodyText?: string; formSummary?: string[] };
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON body, or undefined when the body is empty or not JSON. */
  json: unknown;
  durationMs: number;
}

export class TargetUnreachable extends Error {}

export interface Target {
  baseUrl: string;
  apiKey: string;
  /** Called with every exchange, for journals and tests. */
  onExchange?: (exchange: Exchange) => void;
  timeoutMs?: number;
}

export function buildUrl(baseUrl: string, path: string, query?: RequestSpec["query"]): string {
  const url = new URL(baseUrl.replace(/\/+$/, "") + path);
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
  return url.toString();
}

export async function send(target: Target, spec: RequestSpec): Promise<Exchange> {
  const url = buildUrl(target.baseUrl, spec.path, spec.query);
  const headers: Record<string, string> = { Accept: "application/json", ...spec.headers };
  const key = spec.key === undefined ? target.apiKey : spec.key;
  if (key !== null) headers["X-API-Key"] = key;
  let body: BodyInit | undefined;
  let bodyText: string | undefined;
  let formSummary: string[] | undefined;
  if (spec.rawBody !== undefined) {
    body = bodyText = spec.rawBody;
  } else if (spec.body instanceof FormData) {
    body = spec.body;
    formSummary = summariseForm(spec.body);
  } else if (spec.body !== undefined) {
    body = bodyText = JSON.stringify(spec.body);
    headers["Content-Type"] ??= "application/json";
  }
  const started = performance.now();
  let response: Response;
  try {
    response = await fetch(url, { method: spec.method, headers, body, redirect: "manual", signal: AbortSignal.timeout(target.timeoutMs ?? 30_000) });
  } catch (error) {
    throw new TargetUnreachable(`${spec.method} ${url}: ${(error as Error).cause ?? (error as Error).message}`);
  }
  const text = await response.text();
  let json: unknown;
  try {
    json = text.length > 0 ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  const exchange: Exchange = {
    request: { method: spec.method, url, path: new URL(url).pathname, headers, bodyText, formSummary },
    status: response.status,
    headers: response.headers,
    text,
    json,
    durationMs: performance.now() - started,
  };
  target.onExchange?.(exchange);
  return exchange;
}

function summariseForm(form: FormData): string[] {
  const parts: string[] = [];
  for (const [name, value] of (form as unknown as Iterable<[string, FormDataEntryValue]>)) {
    if (typeof value === "string") parts.push(`${name}=${value.length > 200 ? `${value.slice(0, 200)}...` : value}`);
    else parts.push(`${name}=@${(value as File).name};type=${(value as File).type || "application/octet-stream"} (${(value as File).size} bytes)`);
  }
  return parts;
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** A curl line that reproduces the request, with the API key redacted. */
export function curlLine(exchange: Exchange): string {
  const { method, url, headers, bodyText, formSummary } = exchange.request;
  const parts = ["curl -i", "-X", method, shellQuote(url)];
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() === "accept") continue;
    parts.push("-H", shellQuote(`${name}: ${name.toLowerCase() === "x-api-key" ? "$API_KEY" : value}`));
  }
  if (bodyText !== undefined) parts.push("--data-raw", shellQuote(bodyText.length > 2000 ? `${bodyText.slice(0, 2000)}...` : bodyText));
  for (const field of formSummary ?? []) parts.push("-F", shellQuote(field));
  return parts.join(" ");
}

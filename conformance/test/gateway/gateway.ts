/**
 * A test double of an API gateway (nginx, AWS ALB, Kong) on loopback, in front of an upstream
 * (normally the kit's mock): rate limits, the gateway's own error pages, connection resets, hangs,
 * writes that reached the service before the gateway failed, latency, compression, undocumented
 * fields, rewritten answers. Every random choice comes from a seeded PRNG, so a run is reproducible.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { addExtras, compress, type Answer } from "./answer-transform.js";
import { apiJsonAnswer, htmlAnswer } from "./pages.js";
import { hexId, streams, type Streams } from "./prng.js";
import { announce, Limiter, type RetryAfterForm } from "./rate-limit.js";

export interface GatewayOptions {
  upstream: string;
  seed?: number;
  rateLimit?: { perSecond: number; burst: number; retryAfter: RetryAfterForm; body?: "html" | "api-json" };
  fixedWindow?: { limit: number; windowSeconds: number };
  gatewayErrors?: { probability: number; statuses?: number[]; retryAfterOn503?: boolean };
  resets?: { probability: number };
  hangs?: { probability: number };
  failAfterForward?: { match: (req: { method: string; path: string }) => boolean; times?: number };
  latency?: { minMs: number; maxMs: number };
  compress?: "gzip" | "br";
  extraFields?: boolean;
  /** May answer later (a Promise): the client gets nothing until it settles. */
  rewrite?: (
    req: { method: string; path: string; query: URLSearchParams },
    res: Answer,
  ) => Answer | undefined | Promise<Answer | undefined>;
  quiet?: (path: string) => boolean;
}

export interface GatewayStats {
  received: number;
  forwarded: number;
  rateLimited: number;
  early: number;
  gatewayErrors: Record<string, number>;
  resets: number;
  hangs: number;
  failedAfterForward: number;
  log: { at: number; method: string; path: string; outcome: string }[];
}

export interface Gateway {
  url: string;
  stats(): GatewayStats;
  setOptions(patch: Partial<GatewayOptions>): void;
  close(): Promise<void>;
}

export const DEFAULT_SEED = 0x5eed;

/** Request headers a proxy never passes on (hop-by-hop, or set by the client that forwards). */
const REQUEST_DROP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
  "content-length",
  "expect",
]);
/** Upstream answer headers dropped: hop-by-hop, and those fetch's decoding made wrong. */
const RESPONSE_DROP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "content-length",
  "content-encoding",
]);

type Decision =
  | { kind: "quiet" | "forward" }
  | { kind: "429"; answer: Answer }
  | { kind: "error"; answer: Answer }
  | { kind: "reset" | "hang" };

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function drain(incoming: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of incoming) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

function send(outgoing: ServerResponse, method: string, answer: Answer, setCookies: string[] = []): void {
  if (outgoing.destroyed || outgoing.headersSent) return;
  const headers: Record<string, string | string[]> = { ...answer.headers };
  if (setCookies.length) headers["set-cookie"] = setCookies;
  const bodyless = method === "HEAD" || answer.status === 204 || answer.status === 304;
  if (!bodyless) headers["content-length"] = String(answer.body.length);
  outgoing.writeHead(answer.status, headers).end(bodyless ? undefined : answer.body);
}

export async function startGateway(initial: GatewayOptions): Promise<Gateway> {
  const started = Date.now();
  let options: GatewayOptions = { ...initial };
  let rng: Streams = streams(options.seed ?? DEFAULT_SEED);
  let limiter = new Limiter(options.rateLimit, options.fixedWindow, started);
  let failuresLeft = options.failAfterForward?.times ?? 1;
  /** Arrivals before this instant come while an announced Retry-After is still running. */
  let earlyBefore = -Infinity;
  let closed = false;
  const stats: GatewayStats = {
    received: 0,
    forwarded: 0,
    rateLimited: 0,
    early: 0,
    gatewayErrors: {},
    resets: 0,
    hangs: 0,
    failedAfterForward: 0,
    log: [],
  };
  const sockets = new Set<Socket>();

  function noteAnnouncement(until: number | undefined): void {
    if (until !== undefined) earlyBefore = Math.max(earlyBefore, until);
  }

  /** Everything random or stateful is decided here, synchronously, in arrival order. */
  function decide(now: number, path: string): Decision {
    const o = options;
    if (o.quiet?.(path)) return { kind: "quiet" };
    if (now < earlyBefore) stats.early++;
    if (limiter.active) {
      const wait = limiter.admit(now);
      if (wait > 0) {
        const form = o.rateLimit?.retryAfter ?? "seconds";
        const { header, earlyBefore: until } = announce(form, now, wait);
        noteAnnouncement(until);
        const extra: Record<string, string> = header ? { "retry-after": header } : {};
        const answer =
          o.rateLimit?.body === "api-json"
            ? apiJsonAnswer(429, path, "Rate limit exceeded, retry later", extra)
            : htmlAnswer(429, extra);
        return { kind: "429", answer };
      }
    }
    const r = rng.noise();
    const pReset = o.resets?.probability ?? 0;
    const pHang = o.hangs?.probability ?? 0;
    const pError = o.gatewayErrors?.probability ?? 0;
    if (r < pReset) return { kind: "reset" };
    if (r < pReset + pHang) return { kind: "hang" };
    if (r < pReset + pHang + pError) {
      const statuses = o.gatewayErrors?.statuses?.length ? o.gatewayErrors.statuses : [502, 503, 504];
      const status = statuses[Math.floor(rng.pick() * statuses.length)];
      const extra: Record<string, string> = {};
      if (status === 503 && o.gatewayErrors?.retryAfterOn503) {
        const { header, earlyBefore: until } = announce("seconds", now, 1000);
        extra["retry-after"] = header!;
        noteAnnouncement(until);
      }
      return { kind: "error", answer: htmlAnswer(status, extra) };
    }
    return { kind: "forward" };
  }

  async function forward(
    method: string,
    rawUrl: string,
    incoming: IncomingMessage,
    body: Buffer,
  ): Promise<{ answer: Answer; setCookies: string[] }> {
    const headers = new Headers();
    for (const [k, v] of Object.entries(incoming.headers))
      if (v !== undefined && !REQUEST_DROP.has(k)) headers.set(k, Array.isArray(v) ? v.join(", ") : v);
    const target = options.upstream.replace(/\/+$/, "") + rawUrl;
    const bodyless = method === "GET" || method === "HEAD";
    const res = await fetch(target, {
      method,
      headers,
      body: bodyless ? undefined : new Uint8Array(body),
      redirect: "manual",
    });
    const out: Record<string, string> = {};
    res.headers.forEach((v, k) => {
      if (!RESPONSE_DROP.has(k) && k !== "set-cookie") out[k] = v;
    });
    return {
      answer: { status: res.status, headers: out, body: Buffer.from(await res.arrayBuffer()) },
      setCookies: res.headers.getSetCookie(),
    };
  }

  async function handle(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
    const now = Date.now();
    const method = incoming.method ?? "GET";
    const rawUrl = incoming.url ?? "/";
    const url = new URL(rawUrl, "http://gateway");
    const path = url.pathname;
    stats.received++;
    const entry = { at: now - started, method, path: path + url.search, outcome: "" };
    stats.log.push(entry);

    const decision = decide(now, path);
    const faf = options.failAfterForward;
    const failAfter =
      (decision.kind === "forward" || decision.kind === "quiet") &&
      faf !== undefined &&
      failuresLeft > 0 &&
      faf.match({ method, path });
    if (failAfter) failuresLeft--;
    const delay =
      decision.kind === "forward" && options.latency
        ? options.latency.minMs + rng.latency() * (options.latency.maxMs - options.latency.minMs)
        : 0;

    switch (decision.kind) {
      case "reset":
        stats.resets++;
        entry.outcome = "reset";
        incoming.socket.destroy();
        return;
      case "hang":
        stats.hangs++;
        entry.outcome = "hang";
        incoming.resume();
        return;
      case "429":
        stats.rateLimited++;
        entry.outcome = "429";
        await drain(incoming);
        return send(outgoing, method, decision.answer);
      case "error": {
        const status = String(decision.answer.status);
        stats.gatewayErrors[status] = (stats.gatewayErrors[status] ?? 0) + 1;
        entry.outcome = status;
        await drain(incoming);
        return send(outgoing, method, decision.answer);
      }
    }

    entry.outcome = failAfter ? "after-forward-502" : "forwarded";
    const body = await drain(incoming);
    if (delay > 0) await sleep(delay);
    if (closed) return;
    stats.forwarded++;
    let upstream: { answer: Answer; setCookies: string[] };
    try {
      upstream = await forward(method, rawUrl, incoming, body);
    } catch {
      entry.outcome = "upstream-502";
      return send(outgoing, method, htmlAnswer(502));
    }
    if (failAfter) {
      stats.failedAfterForward++;
      return send(outgoing, method, htmlAnswer(502));
    }
    let answer =
      (await options.rewrite?.({ method, path, query: url.searchParams }, upstream.answer)) ?? upstream.answer;
    if (options.extraFields) answer = addExtras(answer, hexId(rng.ids));
    if (options.compress) answer = compress(answer, options.compress, incoming.headers["accept-encoding"], method);
    send(outgoing, method, answer, upstream.setCookies);
  }

  const server: Server = createServer((incoming, outgoing) => {
    handle(incoming, outgoing).catch(() => {
      if (!outgoing.headersSent && !outgoing.destroyed) send(outgoing, incoming.method ?? "GET", htmlAnswer(502));
      else outgoing.destroy();
    });
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    stats: () => ({ ...stats, gatewayErrors: { ...stats.gatewayErrors }, log: stats.log.map((e) => ({ ...e })) }),
    setOptions(patch) {
      options = { ...options, ...patch };
      const now = Date.now();
      if ("rateLimit" in patch || "fixedWindow" in patch)
        limiter = new Limiter(options.rateLimit, options.fixedWindow, now);
      if ("seed" in patch) rng = streams(options.seed ?? DEFAULT_SEED);
      if ("failAfterForward" in patch) failuresLeft = options.failAfterForward?.times ?? 1;
    },
    close: () =>
      new Promise<void>((resolve) => {
        closed = true;
        for (const socket of sockets) socket.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

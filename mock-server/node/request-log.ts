/**
 * The console's request log (`npm start -- --log-format pretty|json|off`): one line per answered
 * request, as Prism prints one, from the core's onRequest hook.
 *   pretty: `[14:03:07.412] GET /v1/calls 200 1.2 ms listCalls ws=ws-2-... fault=f-1`
 *   json:   `{"time":"2026-...Z","method":"GET","path":"/v1/calls","status":200,"durationMs":1.2,...}`
 */
import type { RequestLogEntry } from "../core/exchange.js";
import { DEFAULT_WORKSPACE_ID } from "../core/defaults.js";

export type LogFormat = "pretty" | "json" | "off";
export const LOG_FORMATS: readonly LogFormat[] = ["pretty", "json", "off"];

type Write = (line: string) => void;

/** ANSI colours by status class; `reset` (no status: the connection was destroyed) in magenta. */
function paint(status: number | null, text: string): string {
  const code = status === null ? 35 : status >= 500 ? 31 : status >= 400 ? 33 : status >= 300 ? 36 : 32;
  return `\x1b[${code}m${text}\x1b[39m`;
}

/** Colour only for a person at a terminal, and never when NO_COLOR is set (https://no-color.org). */
export function colorWanted(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  return Boolean(stream.isTTY) && !env.NO_COLOR;
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");
// A path is the client's text: control characters would let a client forge or garble log lines.
const CONTROL = /[\x00-\x1f\x7f]/g;
const escape = (text: string) => text.replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);

export function prettyLine(entry: RequestLogEntry, at: Date, color: boolean): string {
  const time = `${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}.${pad(at.getMilliseconds(), 3)}`;
  const status = entry.status === null ? "reset" : String(entry.status);
  let line = `[${time}] ${entry.method} ${escape(entry.path)} ${color ? paint(entry.status, status) : status} ${entry.durationMs.toFixed(1)} ms`;
  if (entry.operationId) line += ` ${entry.operationId}`;
  if (entry.workspaceId && entry.workspaceId !== DEFAULT_WORKSPACE_ID) line += ` ws=${entry.workspaceId}`;
  if (entry.faultId) line += ` fault=${entry.faultId}`;
  return line;
}

export function jsonLine(entry: RequestLogEntry, at: Date): string {
  return JSON.stringify({
    time: at.toISOString(),
    method: entry.method,
    path: entry.path,
    status: entry.status,
    durationMs: Math.round(entry.durationMs * 1000) / 1000,
    operationId: entry.operationId,
    workspaceId: entry.workspaceId,
    faultId: entry.faultId,
  });
}

/** Pending output past which lines are dropped: a console that stopped reading must not grow the mock's memory. */
const MAX_PENDING_BYTES = 4 * 2 ** 20;

/**
 * Lines to stdout, gathered over one turn of the event loop and written at once: under load that is
 * one write call per turn instead of one per request. A reader that went away (EPIPE) ends the log,
 * not the mock.
 */
export function stdoutLines(stream: NodeJS.WritableStream & { writableLength: number } = process.stdout): Write {
  let pending: string[] = [];
  let dropped = 0;
  let scheduled = false;
  let broken = false;
  // Also keeps console.log's EPIPE from crashing the mock once the reader is gone.
  stream.on("error", () => void (broken = true));
  const flush = () => {
    scheduled = false;
    if (dropped) pending.push(`(${dropped} request log line(s) dropped: stdout is not keeping up)`);
    if (!broken && pending.length) stream.write(`${pending.join("\n")}\n`);
    pending = [];
    dropped = 0;
  };
  return (line) => {
    if (broken) return;
    if (stream.writableLength > MAX_PENDING_BYTES) dropped++;
    else pending.push(line);
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
}

/** The onRequest hook for `format`; undefined for "off", so the core builds no line at all. */
export function requestLogger(
  format: LogFormat,
  write?: Write,
  color = colorWanted(process.stdout, process.env),
): ((entry: RequestLogEntry) => void) | undefined {
  if (format === "off") return undefined;
  const out = write ?? stdoutLines();
  if (format === "json") return (entry) => out(jsonLine(entry, new Date()));
  return (entry) => out(prettyLine(entry, new Date(), color));
}

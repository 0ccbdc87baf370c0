/**
 * The console's request log (`--log-format`): the line formats, colour only when asked for, and
 * stdout written once per event-loop turn. The real process is start-process.test.ts.
 */
import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import type { RequestLogEntry } from "../../core/exchange.js";
import { colorWanted, jsonLine, prettyLine, requestLogger, stdoutLines } from "../../node/request-log.js";

const entry = (over: Partial<RequestLogEntry> = {}): RequestLogEntry => ({
  method: "GET",
  path: "/v1/calls",
  status: 200,
  durationMs: 1.234,
  operationId: "listCalls",
  workspaceId: "default",
  faultId: null,
  faultKind: null,
  ...over,
});
const at = new Date(2026, 10, 1, 9, 5, 7, 42);

describe("pretty", () => {
  it("is one line as Prism prints one: time, method, path, status, ms, operation", () => {
    expect(prettyLine(entry(), at, false)).toBe("[09:05:07.042] GET /v1/calls 200 1.2 ms listCalls");
  });

  it("names a workspace other than the default, the fault rule, and `reset` when there was no answer", () => {
    expect(prettyLine(entry({ workspaceId: "ws-2-abc", faultId: "fault-1", status: null }), at, false)).toBe(
      "[09:05:07.042] GET /v1/calls reset 1.2 ms listCalls ws=ws-2-abc fault=fault-1",
    );
    expect(prettyLine(entry({ operationId: null, workspaceId: null, status: 404, path: "/nope" }), at, false)).toBe(
      "[09:05:07.042] GET /nope 404 1.2 ms",
    );
  });

  it("colours the status by class only when asked", () => {
    expect(prettyLine(entry({ status: 201 }), at, true)).toContain("\x1b[32m201\x1b[39m");
    expect(prettyLine(entry({ status: 404 }), at, true)).toContain("\x1b[33m404\x1b[39m");
    expect(prettyLine(entry({ status: 503 }), at, true)).toContain("\x1b[31m503\x1b[39m");
    expect(prettyLine(entry({ status: 503 }), at, false)).not.toContain("\x1b");
  });

  it("escapes control characters of the path, so a client cannot forge a line", () => {
    expect(prettyLine(entry({ path: "/v1/a\nb\x1b[31m" }), at, false)).toContain("/v1/a\\x0ab\\x1b[31m");
  });
});

describe("colour", () => {
  it("is for a terminal, unless NO_COLOR is set", () => {
    expect(colorWanted({ isTTY: true }, {})).toBe(true);
    expect(colorWanted({ isTTY: true }, { NO_COLOR: "1" })).toBe(false);
    expect(colorWanted({ isTTY: false }, {})).toBe(false);
    expect(colorWanted({}, {})).toBe(false);
  });
});

describe("json", () => {
  it("is one object per line with every field and an ISO time", () => {
    const line = jsonLine(entry({ faultId: "f-1", status: null }), at);
    expect(line).not.toContain("\n");
    expect(JSON.parse(line)).toEqual({
      time: at.toISOString(),
      method: "GET",
      path: "/v1/calls",
      status: null,
      durationMs: 1.234,
      operationId: "listCalls",
      workspaceId: "default",
      faultId: "f-1",
    });
  });
});

describe("requestLogger", () => {
  it("is undefined for off, so the core is not even called", () => {
    expect(requestLogger("off", () => expect.unreachable())).toBeUndefined();
  });

  it("writes one line per request in the format asked for", () => {
    const lines: string[] = [];
    requestLogger("pretty", (l) => lines.push(l), false)!(entry());
    requestLogger("json", (l) => lines.push(l), false)!(entry());
    expect(lines[0]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] GET \/v1\/calls 200 1\.2 ms listCalls$/);
    expect(JSON.parse(lines[1])).toMatchObject({ path: "/v1/calls", status: 200 });
  });
});

/** A stdout stand-in: records each write call. */
function fakeStream(writableLength = 0) {
  const stream = Object.assign(new EventEmitter(), {
    writableLength,
    writes: [] as string[],
    write: (chunk: string) => stream.writes.push(chunk) > 0,
  });
  return stream;
}
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe("stdoutLines", () => {
  it("writes the lines of one event-loop turn in one call", async () => {
    const stream = fakeStream();
    const write = stdoutLines(stream as unknown as NodeJS.WriteStream);
    write("a");
    write("b");
    expect(stream.writes).toEqual([]);
    await nextTurn();
    expect(stream.writes).toEqual(["a\nb\n"]);
    write("c");
    await nextTurn();
    expect(stream.writes).toEqual(["a\nb\n", "c\n"]);
  });

  it("drops lines, and says how many, while stdout is not read", async () => {
    const stream = fakeStream(64 * 2 ** 20);
    const write = stdoutLines(stream as unknown as NodeJS.WriteStream);
    write("a");
    write("b");
    await nextTurn();
    expect(stream.writes).toEqual(["(2 request log line(s) dropped: stdout is not keeping up)\n"]);
  });

  it("stops writing once stdout failed (its reader went away)", async () => {
    const stream = fakeStream();
    const write = stdoutLines(stream as unknown as NodeJS.WriteStream);
    stream.emit("error", Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
    write("a");
    await nextTurn();
    expect(stream.writes).toEqual([]);
  });
});

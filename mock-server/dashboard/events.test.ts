import { describe, expect, it } from "vitest";
import { connectLive, type LiveState, SseParser, type SseEvent } from "./events.js";

describe("SseParser", () => {
  it("parses events cut anywhere, with comments, CRLF and several data lines", () => {
    const text =
      ': connected\r\nretry: 2000\r\n\r\nevent: request\r\ndata: {"id":"1"}\r\n\r\nevent: dropped\ndata: {"count"\ndata: :3}\n\ndata: plain\r\r\n';
    for (const size of [1, 2, 5, 13, text.length]) {
      const parser = new SseParser();
      const events: SseEvent[] = [];
      for (let i = 0; i < text.length; i += size) events.push(...parser.push(text.slice(i, i + size)));
      expect(events, `pieces of ${size}`).toEqual([
        { type: "request", data: '{"id":"1"}' },
        { type: "dropped", data: '{"count"\n:3}' },
        { type: "message", data: "plain" },
      ]);
    }
  });

  it("keeps an event without its blank line until the line comes", () => {
    const parser = new SseParser();
    expect(parser.push("event: clock\ndata: {}\n")).toEqual([]);
    expect(parser.push("\n")).toEqual([{ type: "clock", data: "{}" }]);
  });
});

/** A fetch that answers the stream with what `chunks` gives, then ends; or fails. */
function streamFetch(answers: (string[] | "fail")[], seen: RequestInit[]): typeof fetch {
  let call = 0;
  return (async (_url: string, init: RequestInit) => {
    seen.push(init);
    const answer = answers[Math.min(call++, answers.length - 1)];
    if (answer === "fail") throw new TypeError("fetch failed");
    const encoder = new TextEncoder();
    return new Response(
      new ReadableStream({
        start(controller) {
          for (const chunk of answer) controller.enqueue(encoder.encode(chunk));
          controller.close();
        },
      }),
      { status: 200, headers: { "Content-Type": "text/event-stream" } },
    );
  }) as typeof fetch;
}

describe("connectLive", () => {
  it("reads events, sends the headers, and opens again after a failure and after the end", async () => {
    const seen: RequestInit[] = [];
    const events: SseEvent[] = [];
    const states: LiveState[] = [];
    const live = connectLive({
      url: "http://mock/__mock/events",
      headers: { "X-Mock-Dashboard": "1" },
      fetch: streamFetch(["fail", ['event: clock\ndata: {"now":', '"x"}\n\n'], ["event: fault\ndata: {}\n\n"]], seen),
      onEvent: (e) => events.push(e),
      onState: (s) => states.push(s),
      firstDelayMs: 5,
      maxDelayMs: 20,
    });
    await expect.poll(() => events.length, { timeout: 2000 }).toBeGreaterThanOrEqual(2);
    live.close();
    expect(events.slice(0, 2)).toEqual([
      { type: "clock", data: '{"now":"x"}' },
      { type: "fault", data: "{}" },
    ]);
    expect(states.slice(0, 5)).toEqual(["connecting", "offline", "connecting", "live", "offline"]);
    expect(new Headers(seen[0].headers).get("X-Mock-Dashboard")).toBe("1");
    expect(new Headers(seen[0].headers).get("Accept")).toBe("text/event-stream");
  });

  it("stops for good on close()", async () => {
    const seen: RequestInit[] = [];
    const live = connectLive({
      url: "u",
      headers: {},
      fetch: streamFetch(["fail"], seen),
      onEvent: () => undefined,
      onState: () => undefined,
      firstDelayMs: 5,
    });
    await expect.poll(() => seen.length, { timeout: 1000 }).toBeGreaterThanOrEqual(1);
    live.close();
    const after = seen.length;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(seen.length).toBe(after);
  });

  it("on a 401, tells the mock's message once and does not retry; unheard, retries it like any failure", async () => {
    let asked = 0;
    const refuse = (async () => {
      asked++;
      return new Response(JSON.stringify({ status: 401, error: "Unauthorized", message: "Needs the token." }), {
        status: 401,
        headers: { "Content-Type": "application/json" },
      });
    }) as typeof fetch;
    const told: string[] = [];
    const heard = connectLive({
      url: "u",
      headers: {},
      fetch: refuse,
      onEvent: () => undefined,
      onState: () => undefined,
      onUnauthorized: (message) => told.push(message),
      firstDelayMs: 5,
    });
    await expect.poll(() => told, { timeout: 1000 }).toEqual(["Needs the token."]);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(asked).toBe(1);
    heard.close();

    asked = 0;
    const unheard = connectLive({
      url: "u",
      headers: {},
      fetch: refuse,
      onEvent: () => undefined,
      onState: () => undefined,
      firstDelayMs: 5,
    });
    await expect.poll(() => asked, { timeout: 1000 }).toBeGreaterThanOrEqual(2);
    unheard.close();
  });
});

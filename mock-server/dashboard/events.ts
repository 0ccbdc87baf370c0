/**
 * The live side of the dashboard: GET /__mock/events read with fetch and the body's stream, parsed as
 * server-sent events. Not EventSource: it cannot send headers (X-Mock-Dashboard, a control token), and
 * under MSW the handlers answer with a ReadableStream that only fetch reads the same way as the server's.
 * A stream that fails or ends is opened again after a pause that doubles from 1 s up to 10 s; one refused
 * with 401 is not, when someone is told (onUnauthorized): the secret will not get better by waiting.
 */

export interface SseEvent {
  /** The `event:` field; "message" when the event named none. */
  type: string;
  data: string;
}

/**
 * An incremental parser of the text/event-stream format (HTML's "server-sent events"): feed it text
 * as it arrives, in pieces cut anywhere, and it returns the events completed so far.
 */
export class SseParser {
  private buffer = "";
  private type = "";
  private data: string[] = [];

  push(text: string): SseEvent[] {
    // One pass with a cursor: a batch of a busy mock is hundreds of lines, and cutting the buffer after
    // each line, or searching all of it for a \r it does not have, would cost the page the square of that.
    const buffer = this.buffer + text;
    const events: SseEvent[] = [];
    let start = 0;
    let lf = buffer.indexOf("\n");
    let cr = buffer.indexOf("\r");
    for (;;) {
      if (lf !== -1 && lf < start) lf = buffer.indexOf("\n", start);
      if (cr !== -1 && cr < start) cr = buffer.indexOf("\r", start);
      const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
      // A lone \r at the very end may be the first half of \r\n: wait for more.
      if (end === -1 || (end === cr && end === buffer.length - 1)) break;
      const line = buffer.slice(start, end);
      start = end + (end === cr && buffer[end + 1] === "\n" ? 2 : 1);
      const event = this.line(line);
      if (event) events.push(event);
    }
    this.buffer = buffer.slice(start);
    return events;
  }

  private line(line: string): SseEvent | undefined {
    if (line === "") {
      const event = this.data.length > 0 ? { type: this.type || "message", data: this.data.join("\n") } : undefined;
      this.type = "";
      this.data = [];
      return event;
    }
    if (line.startsWith(":")) return undefined;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") this.type = value;
    else if (field === "data") this.data.push(value);
    return undefined;
  }
}

export type LiveState = "connecting" | "live" | "offline";

export interface LiveOptions {
  url: string;
  headers: Record<string, string>;
  fetch: typeof fetch;
  onEvent: (event: SseEvent) => void;
  /** Told on every change; "live" once the stream's answer came (the page may load its lists then). */
  onState: (state: LiveState) => void;
  /** The first pause before opening again, doubled after each failure up to maxDelayMs. */
  firstDelayMs?: number;
  maxDelayMs?: number;
  /** Told the 401 body's message, after which the stream stays closed; unset, a 401 is retried like any failure. */
  onUnauthorized?: (message: string) => void;
}

export interface Live {
  close(): void;
}

/** Opens the stream and keeps it open until close(). */
export function connectLive(options: LiveOptions): Live {
  const { firstDelayMs = 1000, maxDelayMs = 10_000 } = options;
  let closed = false;
  let controller: AbortController | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let delay = firstDelayMs;

  const once = async (): Promise<void> => {
    controller = new AbortController();
    options.onState("connecting");
    const response = await options.fetch(options.url, {
      headers: { Accept: "text/event-stream", ...options.headers },
      signal: controller.signal,
      cache: "no-store",
    });
    if (response.status === 401 && options.onUnauthorized) {
      closed = true;
      options.onUnauthorized(await messageOf(response));
      return;
    }
    if (!response.ok || !response.body) throw new Error(`events: ${response.status}`);
    options.onState("live");
    delay = firstDelayMs;
    const parser = new SseParser();
    const decoder = new TextDecoder();
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done || closed) break;
      for (const event of parser.push(decoder.decode(value, { stream: true }))) options.onEvent(event);
    }
  };

  const run = (): void => {
    once()
      .catch(() => undefined)
      .then(() => {
        if (closed) return;
        options.onState("offline");
        timer = setTimeout(run, delay);
        delay = Math.min(delay * 2, maxDelayMs);
      });
  };
  run();

  return {
    close() {
      closed = true;
      clearTimeout(timer);
      controller?.abort();
    },
  };
}

/** The message of a 2.2 error body, or a sentence of its status when it has none. */
async function messageOf(response: Response): Promise<string> {
  try {
    const body = JSON.parse(await response.text());
    if (typeof body?.message === "string") return body.message;
  } catch {
    // Not JSON: said below.
  }
  return `GET /__mock/events answered ${response.status}.`;
}

/**
 * The live events of one mock (GET /__mock/events, the dashboard): what happened, as server-sent
 * events. Publishers ask `active` first, so a mock nobody watches does no work for it at all.
 *
 * Each reader has its own queue of events not yet sent, bounded: a reader that does not keep up (a
 * background tab, a slow link) loses its oldest unsent events and is told how many, so the mock's
 * memory never grows with it. Events go out in batches, at most one write per FLUSH_MS per reader,
 * so a mock answering thousands of requests a second writes a few dozen times a second per reader.
 */

export type MockEventType = "request" | "delivery" | "fault" | "clock" | "workspace";

/** How many unsent events a reader keeps; older ones are dropped. */
export const READER_CAPACITY = 1000;
/** Events are gathered this long before a write. */
export const FLUSH_MS = 50;
/** An idle stream gets a comment line this often, so proxies keep it open. */
export const KEEP_ALIVE_MS = 15_000;

export interface EventReaderOptions {
  /** Only events of this workspace, and the mock-wide ones (published with workspaceId null). */
  workspaceId?: string;
  /** With workspaceId: not the mock-wide ones either (a reader holding only that workspace's key). */
  exclusive?: boolean;
  capacity?: number;
  flushMs?: number;
  keepAliveMs?: number;
}

/** One reader's stream: chunks of SSE text to write, in order. */
export interface EventReader {
  /** The next chunk; waits for events (or a keep-alive); undefined once closed. */
  next(): Promise<string | undefined>;
  close(): void;
}

interface Queued {
  workspaceId: string | null;
  text: string;
}

class Reader implements EventReader {
  private queue: string[] = [];
  private head = 0;
  private dropped = 0;
  private closed = false;
  private waiting: ((chunk: string | undefined) => void) | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Whether `timer` is the batch's (FLUSH_MS) rather than the keep-alive's. */
  private batching = false;
  /** The first chunk opens the stream at once (the page knows it is live), and sets the browser's retry. */
  private opening: string | undefined = "retry: 2000\n: connected\n\n";

  constructor(
    private readonly options: Required<Omit<EventReaderOptions, "workspaceId">> & { workspaceId?: string },
    private readonly onClose: (reader: Reader) => void,
  ) {}

  accepts(event: Queued): boolean {
    const { workspaceId, exclusive } = this.options;
    if (workspaceId === undefined) return true;
    return event.workspaceId === workspaceId || (event.workspaceId === null && !exclusive);
  }

  push(text: string): void {
    if (this.closed) return;
    this.queue.push(text);
    if (this.queue.length - this.head > this.options.capacity) {
      this.head++;
      this.dropped++;
    }
    // Compact now and then rather than shift on every drop.
    if (this.head > this.options.capacity) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    if (this.waiting && !this.batching) {
      clearTimeout(this.timer);
      this.batching = true;
      this.timer = unref(setTimeout(() => this.flush(), this.options.flushMs));
    }
  }

  /** How many events wait to be written (for tests and the bench). */
  get pending(): number {
    return this.queue.length - this.head;
  }

  next(): Promise<string | undefined> {
    if (this.closed) return Promise.resolve(undefined);
    if (this.opening) {
      const opening = this.opening;
      this.opening = undefined;
      return Promise.resolve(opening);
    }
    // Whatever is queued waits for the batch to fill: a busy mock writes every FLUSH_MS, not per event.
    const queued = this.pending > 0 || this.dropped > 0;
    return new Promise((resolve) => {
      this.waiting = resolve;
      this.batching = queued;
      this.timer = unref(setTimeout(() => this.flush(), queued ? this.options.flushMs : this.options.keepAliveMs));
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.queue = [];
    this.head = 0;
    this.settle(undefined);
    this.onClose(this);
  }

  private flush(): void {
    this.settle(this.pending > 0 || this.dropped > 0 ? this.take() : ": keep-alive\n\n");
  }

  private settle(chunk: string | undefined): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.batching = false;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.(chunk);
  }

  private take(): string {
    let chunk = this.dropped > 0 ? sse("dropped", JSON.stringify({ count: this.dropped })) : "";
    this.dropped = 0;
    for (let i = this.head; i < this.queue.length; i++) chunk += this.queue[i];
    this.queue = [];
    this.head = 0;
    return chunk;
  }
}

/** A reader's timer must not keep a process alive that is otherwise done (a test, a CLI). */
function unref(timer: ReturnType<typeof setTimeout>): ReturnType<typeof setTimeout> {
  (timer as { unref?: () => void }).unref?.();
  return timer;
}

const sse = (type: string, data: string) => `event: ${type}\ndata: ${data}\n\n`;

export class MockEvents {
  private readonly readers = new Set<Reader>();

  /** Whether anyone reads: publishers build nothing when not. */
  get active(): boolean {
    return this.readers.size > 0;
  }

  /** `data` is serialized once, for every reader; `workspaceId` null for mock-wide events. */
  publish(type: MockEventType, workspaceId: string | null, data: unknown): void {
    if (this.readers.size > 0) this.publishJson(type, workspaceId, JSON.stringify(data));
  }

  /** publish() of data already serialized (the request events, written directly: one per request). */
  publishJson(type: MockEventType, workspaceId: string | null, json: string): void {
    if (this.readers.size === 0) return;
    const event = { workspaceId, text: sse(type, json) };
    for (const reader of this.readers) if (reader.accepts(event)) reader.push(event.text);
  }

  subscribe(options: EventReaderOptions = {}): EventReader {
    const reader = new Reader(
      {
        capacity: options.capacity ?? READER_CAPACITY,
        flushMs: options.flushMs ?? FLUSH_MS,
        keepAliveMs: options.keepAliveMs ?? KEEP_ALIVE_MS,
        exclusive: options.exclusive ?? false,
        ...(options.workspaceId !== undefined && { workspaceId: options.workspaceId }),
      },
      (closed) => this.readers.delete(closed),
    );
    this.readers.add(reader);
    return reader;
  }

  /** Ends every stream (the mock is closing): their next() resolves undefined. */
  close(): void {
    for (const reader of [...this.readers]) reader.close();
  }

  /** Readers and their unsent events: what the bench and the tests look at. */
  stats(): { readers: number; pending: number } {
    let pending = 0;
    for (const reader of this.readers) pending += reader.pending;
    return { readers: this.readers.size, pending };
  }
}

/** The gateway double's rate limits: a token bucket and a fixed window, checked together; a refused request consumes nothing. */

export interface BucketOptions {
  perSecond: number;
  burst: number;
}

export interface WindowOptions {
  limit: number;
  windowSeconds: number;
}

/** Refills continuously at `perSecond`, holds at most `burst`; starts full. */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly o: BucketOptions,
    now: number,
  ) {
    this.tokens = o.burst;
    this.last = now;
  }

  /** Milliseconds until one token is there; 0 when a request may pass now. */
  waitMs(now: number): number {
    this.tokens = Math.min(this.o.burst, this.tokens + ((now - this.last) / 1000) * this.o.perSecond);
    this.last = Math.max(this.last, now);
    return this.tokens >= 1 ? 0 : ((1 - this.tokens) / this.o.perSecond) * 1000;
  }

  take(): void {
    this.tokens -= 1;
  }
}

/** At most `limit` requests per window; windows follow one another from the gateway's start. */
export class FixedWindow {
  private index = -1;
  private count = 0;

  constructor(
    private readonly o: WindowOptions,
    private readonly origin: number,
  ) {}

  private roll(now: number): void {
    const index = Math.floor((now - this.origin) / (this.o.windowSeconds * 1000));
    if (index !== this.index) {
      this.index = index;
      this.count = 0;
    }
  }

  waitMs(now: number): number {
    this.roll(now);
    if (this.count < this.o.limit) return 0;
    const end = this.origin + (this.index + 1) * this.o.windowSeconds * 1000;
    return Math.max(1, end - now);
  }

  take(): void {
    this.count += 1;
  }
}

export class Limiter {
  private readonly bucket?: TokenBucket;
  private readonly window?: FixedWindow;

  constructor(bucket: BucketOptions | undefined, window: WindowOptions | undefined, now: number) {
    if (bucket) this.bucket = new TokenBucket(bucket, now);
    if (window) this.window = new FixedWindow(window, now);
  }

  get active(): boolean {
    return Boolean(this.bucket || this.window);
  }

  /** 0: admitted (a token and a window slot are taken); otherwise the milliseconds to wait, nothing taken. */
  admit(now: number): number {
    const wait = Math.max(this.bucket?.waitMs(now) ?? 0, this.window?.waitMs(now) ?? 0);
    if (wait > 0) return wait;
    this.bucket?.take();
    this.window?.take();
    return 0;
  }
}

export type RetryAfterForm = "seconds" | "http-date" | "none";

/**
 * How a 429 (or 503) announces `waitMs`: the Retry-After value, and the instant before which a
 * request counts as early (already lowered by the tolerance the form needs).
 */
export function announce(form: RetryAfterForm, now: number, waitMs: number): { header?: string; earlyBefore?: number } {
  if (form === "none") return {};
  if (form === "seconds") {
    const seconds = Math.max(1, Math.ceil(waitMs / 1000));
    return { header: String(seconds), earlyBefore: now + seconds * 1000 };
  }
  // An HTTP-date has second precision: round UP so the client never comes early; allow 50 ms for that rounding.
  const end = Math.ceil((now + waitMs) / 1000) * 1000;
  return { header: new Date(end).toUTCString(), earlyBefore: end - 50 };
}

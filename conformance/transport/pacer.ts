/**
 * When the next request to a target may start. Three things hold it back:
 * - a wait the target announced (Retry-After on a 429 or 503, or our backoff after a bare 429):
 *   no request at all starts before it ends;
 * - the pace: `fixed` spaces requests evenly at the rate given; `auto` starts unpaced and, at each
 *   rate limit, learns the rate the target accepts and settles just below it;
 * - the concurrency: at most N requests in flight.
 *
 * How `auto` learns. A 429 says the limiter is empty at that moment. Between two such moments a
 * limiter lets through its rate: a token bucket refills `rate x time` tokens (a few are lost when the
 * bucket overflowed during a wait), a fixed window lets `limit` through per window. So at each 429 the
 * pace becomes 95 % of what was accepted since the last one over the time since, and never more than
 * 95 % of the pace that met it. The first 429 has no earlier one: its figure is what was accepted since
 * the start over the time until the announced wait ends, which is exact for a fixed window (its wait
 * runs to the window's end) and low for a token bucket whose burst is small against the wait. So after
 * the first 429 the pace creeps up by 25 % every 2 s while no 429 comes; the second 429 gives the figure
 * of a whole cycle, and the pace then stays, rarely meeting the limit again.
 */
export type PaceSetting = { kind: "auto" } | { kind: "fixed"; perSecond: number };

/** Below this the pace goes no lower: a target that limits harder is waited for through Retry-After. */
const MIN_PACE = 0.2;
const MARGIN = 0.95;
const PROBE_EVERY_MS = 2000;
const PROBE_STEP = 1.25;

export class Pacer {
  /** Requests per second; Infinity while unpaced. */
  private pace: number;
  private nextStart = 0;
  private blockedUntil = 0;
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly started: number;
  /** When the limiter was last found empty (a 429 learnt from), and what it accepted since. */
  private lastEmpty: number | undefined;
  private acceptedSince = 0;
  /** The pace that met the last 429: probing stays below it. */
  private ceiling = Infinity;
  /** 429s learnt from: after the second, the figure rests on a whole limit cycle and probing stops. */
  private learnt = 0;
  private paceSetAt = 0;

  constructor(
    readonly setting: PaceSetting,
    private readonly concurrency = 1,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.pace = setting.kind === "fixed" ? setting.perSecond : Infinity;
    this.started = this.now();
  }

  /** The pace the run uses now (requests per second), or undefined while unpaced. */
  get currentPace(): number | undefined {
    return Number.isFinite(this.pace) ? this.pace : undefined;
  }

  /** The end of the wait the target announced, in the pacer's clock (0 when none ran). */
  get waitEnds(): number {
    return this.blockedUntil;
  }

  /** Resolves when a request may start; call `release` when its answer is in. */
  async acquire(signal?: AbortSignal): Promise<void> {
    while (this.inFlight >= this.concurrency) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.inFlight++;
    try {
      for (;;) {
        signal?.throwIfAborted();
        const now = this.now();
        this.probe(now);
        const start = Math.max(now, this.blockedUntil, this.nextStart);
        if (start <= now) break;
        await sleep(start - now, signal);
      }
      this.nextStart = Math.max(this.now(), this.nextStart) + (Number.isFinite(this.pace) ? 1000 / this.pace : 0);
    } catch (error) {
      this.release();
      throw error;
    }
  }

  release(): void {
    this.inFlight--;
    this.waiting.shift()?.();
  }

  /** An answer that was not a rate limit: the target accepted the request. */
  accepted(): void {
    this.acceptedSince++;
  }

  /**
   * The target asked for `waitMs` of quiet (a 429, or a 503 with Retry-After: `learn` false).
   * `sentAt`: when the refused request was sent; one sent before the last 429 tells nothing new.
   */
  holdOff(waitMs: number, learn: boolean, sentAt = this.now()): void {
    const now = this.now();
    const until = now + waitMs;
    this.blockedUntil = Math.max(this.blockedUntil, until);
    if (!learn || this.setting.kind !== "auto" || (this.lastEmpty !== undefined && sentAt < this.lastEmpty)) return;
    const since = this.lastEmpty ?? this.started;
    const over = this.lastEmpty === undefined ? until - since : now - since;
    this.ceiling = this.pace;
    // Refused with nothing accepted since the last 429: the limit is below any figure so far.
    const seen = this.acceptedSince > 0 ? (this.acceptedSince * 1000) / Math.max(over, 1) : this.pace / 2;
    if (Number.isFinite(seen)) this.setPace(Math.min(seen, this.ceiling), now);
    this.lastEmpty = now;
    this.acceptedSince = 0;
    this.learnt++;
  }

  private setPace(perSecond: number, now: number): void {
    this.pace = Math.max(MIN_PACE, MARGIN * perSecond);
    this.paceSetAt = now;
  }

  /** After the first 429 only, the pace creeps up while no 429 comes (that guess may be low), below the pace that met it. */
  private probe(now: number): void {
    if (this.setting.kind !== "auto" || this.learnt !== 1 || now - this.paceSetAt < PROBE_EVERY_MS) return;
    this.pace = Math.max(this.pace, Math.min(this.pace * PROBE_STEP, MARGIN * this.ceiling));
    this.paceSetAt = now;
  }
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Clocks. Handlers, simulations and the webhook dispatcher read time from a clock, never from
 * Date.now(), so tests can run on virtual time and `POST /__mock/clock/advance` can make scheduled
 * things happen. Real mode runs at `speed` times wall-clock time from `start`. The mock has a root
 * clock, and every workspace a fork of it with its own scheduled work, so parallel tests each move
 * their own workspace's time (calls, batch runs, webhook retries) and nobody else's.
 */
import { heapPop, heapPush } from "./heap.js";

export type ClockMode = "real" | "virtual";

export interface ClockOptions {
  mode: ClockMode;
  /** Time at creation; defaults to the wall clock (real) or 2026-11-01T12:00:00Z (virtual). */
  start?: Date;
  /** Real mode only: how many virtual seconds pass per wall-clock second. */
  speed?: number;
}

interface Task {
  at: number;
  seq: number;
  run: () => unknown;
}

export const DEFAULT_VIRTUAL_START = new Date("2026-11-01T12:00:00.000Z");

export class Clock {
  readonly mode: ClockMode;
  readonly speed: number;
  private readonly origin: number;
  private readonly wallOrigin = performance.now();
  private offset = 0;
  private readonly queue: Task[] = [];
  private seq = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private draining = false;
  /** Told when the time is moved (set, advance): a workspace's clock is part of its shared state. */
  onSet: (() => void) | undefined;
  /** Where a scheduled task's failure is told (the app points it at its log); it never stops the clock. */
  onTaskError: (error: unknown) => void = (error) =>
    console.error(`scheduled task failed: ${(error as Error)?.stack ?? String(error)}`);

  constructor(options: ClockOptions) {
    this.mode = options.mode;
    this.speed = options.speed ?? 1;
    this.origin = (options.start ?? (options.mode === "virtual" ? DEFAULT_VIRTUAL_START : new Date())).getTime();
  }

  nowMs(): number {
    const wall = this.mode === "real" ? (performance.now() - this.wallOrigin) * this.speed : 0;
    return Math.floor(this.origin + wall + this.offset);
  }

  now(): Date {
    return new Date(this.nowMs());
  }

  /** ISO 8601 in UTC with milliseconds, the format of every timestamp the mock writes. */
  iso(): string {
    return new Date(this.nowMs()).toISOString();
  }

  /** A clock of its own, at this one's time (or `start`), with its mode, speed and error handler. */
  fork(start: Date = this.now()): Clock {
    const clock = new Clock({ mode: this.mode, speed: this.speed, start });
    clock.onTaskError = (error) => this.onTaskError(error);
    return clock;
  }

  /** Puts the clock at `atMs` without running anything (the scheduler runs what falls due: sim/scheduler.ts). */
  set(atMs: number): void {
    this.onSet?.();
    this.offset += atMs - this.nowMs();
    this.arm();
  }

  /** Runs `run` when the clock reaches `atMs` (at once on the next drain if already past). */
  schedule(atMs: number, run: () => unknown): void {
    const task = { at: atMs, seq: this.seq++, run };
    heapPush(this.queue, task);
    this.arm();
  }

  pending(): number {
    return this.queue.length;
  }

  /** Moves time on by `seconds`, running every task that falls due, in time order, at its own time. */
  async advance(seconds: number): Promise<void> {
    const target = this.nowMs() + Math.round(seconds * 1000);
    this.onSet?.();
    while (this.queue.length > 0 && this.queue[0].at <= target) {
      const task = heapPop(this.queue)!;
      if (task.at > this.nowMs()) this.offset += task.at - this.nowMs();
      await task.run();
    }
    if (target > this.nowMs()) this.offset += target - this.nowMs();
    this.arm();
  }

  /** Drops every scheduled task and stops the real-time timer (on close, and when a workspace is reset or deleted). */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.queue.length = 0;
  }

  /** Real mode: one timer, for the earliest task. Virtual mode: tasks wait for advance(). */
  private arm(): void {
    if (this.mode !== "real" || this.queue.length === 0) return;
    if (this.timer) clearTimeout(this.timer);
    const delay = Math.max(0, (this.queue[0].at - this.nowMs()) / this.speed);
    this.timer = setTimeout(() => this.drain(), Math.min(delay, 2 ** 31 - 1));
    // In Node the timer must not keep the process alive; browsers have no unref.
    (this.timer as { unref?: () => void }).unref?.();
  }

  /**
   * Real mode runs what falls due without waiting for it: a task that does I/O (a webhook retry to a
   * receiver that does not answer) must not hold back the calls and batch runs due after it.
   * advance() does wait, so virtual time stays deterministic for tests.
   */
  private drain(): void {
    if (this.draining) return;
    this.draining = true;
    try {
      while (this.queue.length > 0 && this.queue[0].at <= this.nowMs()) {
        const task = heapPop(this.queue)!;
        try {
          const result = task.run();
          if (result instanceof Promise) result.catch((error) => this.onTaskError(error));
        } catch (error) {
          this.onTaskError(error);
        }
      }
    } finally {
      this.draining = false;
      this.timer = undefined;
      this.arm();
    }
  }
}

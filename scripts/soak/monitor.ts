/**
 * Samples the mock while it is under load: resident memory every second; the request journal and the
 * webhook outbox (their lengths, read through the control plane) every two seconds.
 */
import type { MockProcess } from "./mock-process.js";
import { controlList } from "./fixtures.js";

export interface Samples {
  rss: { atMs: number; bytes: number }[];
  journal: number[];
  outbox: number[];
  controlErrors: string[];
}

export function startMonitor(mock: MockProcess): { samples: Samples; stop(): Promise<void> } {
  const samples: Samples = { rss: [], journal: [], outbox: [], controlErrors: [] };
  const started = performance.now();
  let ticks = 0;
  let busy: Promise<void> = Promise.resolve();
  const sizes = async () => {
    try {
      samples.journal.push((await controlList(mock.url, "/requests")).length);
      samples.outbox.push((await controlList(mock.url, "/webhook-deliveries")).length);
    } catch (error) {
      samples.controlErrors.push((error as Error).message);
    }
  };
  const timer = setInterval(() => {
    busy = busy.then(async () => {
      samples.rss.push({ atMs: performance.now() - started, bytes: await mock.rssBytes() });
      if (ticks++ % 2 === 0) await sizes();
    });
  }, 1000);
  return {
    samples,
    /** Stops sampling after one last reading of the journal and the outbox. */
    async stop() {
      clearInterval(timer);
      await busy;
      await sizes();
    },
  };
}

/** Median of the RSS samples taken between `fromMs` and `toMs`. */
export function medianRss(samples: Samples, fromMs: number, toMs: number): number {
  const values = samples.rss
    .filter((s) => s.atMs >= fromMs && s.atMs <= toMs)
    .map((s) => s.bytes)
    .sort((a, b) => a - b);
  return values.length === 0 ? NaN : values[Math.floor(values.length / 2)];
}

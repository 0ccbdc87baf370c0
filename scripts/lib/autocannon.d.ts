/** The part of autocannon 8's API the bench and the soak use (the package ships no types). */
declare module "autocannon" {
  import type { EventEmitter } from "node:events";

  namespace autocannon {
    interface Histogram {
      average: number;
      p50: number;
      p99: number;
      max: number;
    }
    interface Result {
      requests: Histogram & { total: number };
      latency: Histogram;
      duration: number;
      start: Date;
      finish: Date;
      errors: number;
      timeouts: number;
      non2xx: number;
      statusCodeStats: Record<string, { count: number }>;
    }
    interface Client {
      setRequests(requests: unknown[]): void;
    }
    interface Options {
      url: string;
      method?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
      connections?: number;
      duration?: number;
      amount?: number;
      /** Milliseconds between samples (1,000 by default); a run ends at a sample. */
      sampleInt?: number;
      timeout?: number;
      pipelining?: number;
      requests?: unknown[];
      setupClient?: (client: Client) => void;
    }
    interface Instance extends EventEmitter, PromiseLike<Result> {
      on(
        event: "response",
        listener: (client: unknown, statusCode: number, resBytes: number, responseTime: number) => void,
      ): this;
      on(event: "reqError", listener: (error: Error) => void): this;
      stop(): void;
    }
  }

  /** With a callback the result goes there; without one the instance is also a promise of it. */
  function autocannon(
    options: autocannon.Options,
    callback?: (error: Error | null, result: autocannon.Result) => void,
  ): autocannon.Instance;
  export default autocannon;
}

/** The part of autocannon 8's API the bench uses (the package ships no types). */
declare module "autocannon" {
  import type { EventEmitter } from "node:events";

  namespace autocannon {
    interface Options {
      url: string;
      method?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
      connections?: number;
      duration?: number;
      amount?: number;
      timeout?: number;
      pipelining?: number;
    }
    interface Result {
      duration: number;
      start: Date;
      finish: Date;
      errors: number;
      timeouts: number;
      non2xx: number;
    }
    interface Instance extends EventEmitter {
      on(event: "response", listener: (client: unknown, statusCode: number, resBytes: number, responseTime: number) => void): this;
      stop(): void;
    }
  }

  function autocannon(options: autocannon.Options, callback: (error: Error | null, result: autocannon.Result) => void): autocannon.Instance;
  export default autocannon;
}

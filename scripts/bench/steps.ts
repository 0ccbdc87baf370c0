/**
 * The bench's parts as steps: each logs its title, its own lines and how long it took. One at a time
 * (the full bench: every figure measured on a machine doing nothing else of the bench's), the lines as
 * they come; or, for the smoke run (--quick), `lanes` at a time, each step's lines held and printed
 * together once it ends, so that two parts' lines never interleave.
 */
export type Log = (line: string) => void;

export interface Step<T> {
  title: string;
  work: (log: Log) => Promise<T>;
}

export const step = <T>(title: string, work: (log: Log) => Promise<T>): Step<T> => ({ title, work });

type Figures<S extends Record<string, Step<unknown>>> = { [K in keyof S]: Awaited<ReturnType<S[K]["work"]>> };

const seconds = (since: number) => `  (${((performance.now() - since) / 1000).toFixed(1)} s)`;

/** Runs one step in the open: its title, its lines as they come, its time. */
export async function runStep<T>({ title, work }: Step<T>, log: Log): Promise<T> {
  log(`${title}...`);
  const started = performance.now();
  const result = await work(log);
  log(seconds(started));
  return result;
}

/**
 * Runs `steps` in their order, `lanes` at a time (1: one after the other, in the open); answers each
 * step's result under its name. A step that fails fails the whole, once the steps under way have ended.
 */
export async function runSteps<S extends Record<string, Step<unknown>>>(
  steps: S,
  lanes: number,
  log: Log,
): Promise<Figures<S>> {
  const results: Record<string, unknown> = {};
  if (lanes <= 1) {
    for (const [name, one] of Object.entries(steps)) results[name] = await runStep(one, log);
    return results as Figures<S>;
  }
  const queue = Object.entries(steps);
  const lane = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const [name, { title, work }] = next;
      const lines = [`${title}...`];
      const started = performance.now();
      try {
        results[name] = await work((line) => lines.push(line));
      } catch (error) {
        // No further step starts; those under way end.
        queue.length = 0;
        throw error;
      } finally {
        lines.push(seconds(started));
        for (const line of lines) log(line);
      }
    }
  };
  const ended = await Promise.allSettled(Array.from({ length: Math.min(lanes, queue.length) }, lane));
  const failed = ended.find((e): e is PromiseRejectedResult => e.status === "rejected");
  if (failed) throw failed.reason;
  return results as Figures<S>;
}

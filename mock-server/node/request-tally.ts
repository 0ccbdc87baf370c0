/**
 * The two metrics told of every request (apm_requests_total by operation and status,
 * apm_request_duration_seconds by operation), counted in plain numbers as requests are answered and
 * shown to prom-client only when it is scraped. prom-client's own Counter and Histogram hash and
 * validate their labels on every inc() and observe(): a cost each request paid whether or not anyone
 * scrapes. These two are prom-client metrics as far as a Registry can tell (name, help, type,
 * aggregator, get, reset), and give exactly what its Counter and Histogram give for the same requests,
 * in the same order (request-tally.test.ts holds them equal), so the exposition, the JSON a worker
 * sends its primary and the primary's sums do not change.
 */
import type { Registry } from "prom-client";

interface Series {
  labels: { operation: string; status: string };
  value: number;
}

interface Durations {
  /** Per bucket (the last one past every bound: +Inf), not cumulative. */
  buckets: Float64Array;
  sum: number;
  count: number;
}

interface Operation {
  statuses: Map<string, Series>;
  durations: Durations;
}

/** What prom-client's Registry reads of a metric (its Counter and Histogram give the same). */
interface RegistryMetric {
  name: string;
  help: string;
  type: "counter" | "histogram";
  aggregator: "sum";
  get(): Promise<{ name: string; help: string; type: string; values: unknown[]; aggregator: string }>;
  reset(): void;
}

export class RequestTally {
  private readonly operations = new Map<string, Operation>();
  /** Every operation and status counted, in the order first seen (prom-client's order). */
  private series: Series[] = [];

  constructor(
    registry: Registry,
    names: { requests: { name: string; help: string }; durations: { name: string; help: string } },
    private readonly bounds: readonly number[],
  ) {
    registry.registerMetric(this.counter(names.requests) as never);
    registry.registerMetric(this.histogram(names.durations) as never);
  }

  /** One answered request: a few Map reads and additions. */
  requestDone(operation: string, status: string, seconds: number): void {
    let counted = this.operations.get(operation);
    if (!counted) {
      counted = {
        statuses: new Map(),
        durations: { buckets: new Float64Array(this.bounds.length + 1), sum: 0, count: 0 },
      };
      this.operations.set(operation, counted);
    }
    let series = counted.statuses.get(status);
    if (!series) {
      series = { labels: { operation, status }, value: 0 };
      counted.statuses.set(status, series);
      this.series.push(series);
    }
    series.value++;
    const durations = counted.durations;
    const bounds = this.bounds;
    // prom-client's rule: the first bound the value is at most, else +Inf.
    let bucket = 0;
    while (bucket < bounds.length && !(seconds <= bounds[bucket])) bucket++;
    durations.buckets[bucket]++;
    durations.sum += seconds;
    durations.count++;
  }

  private reset(): void {
    this.operations.clear();
    this.series = [];
  }

  private counter({ name, help }: { name: string; help: string }): RegistryMetric {
    return {
      name,
      help,
      type: "counter",
      aggregator: "sum",
      get: async () => ({
        help,
        name,
        type: "counter",
        values: this.series.map(({ labels, value }) => ({ value, labels: { ...labels } })),
        aggregator: "sum",
      }),
      reset: () => this.reset(),
    };
  }

  private histogram({ name, help }: { name: string; help: string }): RegistryMetric {
    const bucketName = `${name}_bucket`;
    return {
      name,
      help,
      type: "histogram",
      aggregator: "sum",
      get: async () => {
        // As prom-client's Histogram.get() gives them: per operation its cumulative buckets, +Inf, sum, count.
        const values: unknown[] = [];
        for (const [operation, { durations }] of this.operations) {
          let cumulative = 0;
          this.bounds.forEach((le, i) => {
            cumulative += durations.buckets[i];
            values.push({ value: cumulative, metricName: bucketName, exemplar: null, labels: { le, operation } });
          });
          values.push(
            { value: durations.count, metricName: bucketName, exemplar: null, labels: { le: "+Inf", operation } },
            { value: durations.sum, metricName: `${name}_sum`, exemplar: undefined, labels: { operation } },
            { value: durations.count, metricName: `${name}_count`, exemplar: undefined, labels: { operation } },
          );
        }
        return { name, help, type: "histogram", values, aggregator: "sum" };
      },
      reset: () => this.reset(),
    };
  }
}

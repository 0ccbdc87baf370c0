/** The tallied request metrics give exactly what prom-client's own Counter and Histogram give. */
import fc from "fast-check";
import { AggregatorRegistry, Counter, Histogram, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { DURATION_BUCKETS } from "./metrics.js";
import { RequestTally } from "./request-tally.js";

const REQUESTS = { name: "apm_requests_total", help: "Requests answered" };
const DURATIONS = { name: "apm_request_duration_seconds", help: "Time to answer" };

/** prom-client's own metrics, told each request as metrics.ts told them before. */
function promClient(registry: Registry) {
  const requests = new Counter({ ...REQUESTS, labelNames: ["operation", "status"], registers: [registry] });
  const durations = new Histogram({
    ...DURATIONS,
    labelNames: ["operation"],
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  return (operation: string, status: string, seconds: number) => {
    requests.labels(operation, status).inc();
    durations.labels(operation).observe(seconds);
  };
}

const request = fc.record({
  operation: fc.constantFrom("getCall", "listCalls", "none", "createChat"),
  status: fc.constantFrom("200", "201", "404", "reset"),
  // The bounds themselves, values between them, and past the last.
  seconds: fc.oneof(fc.constantFrom(...DURATION_BUCKETS, 0), fc.double({ min: 0, max: 10, noNaN: true })),
});

describe("RequestTally", () => {
  it("renders and snapshots as prom-client's Counter and Histogram do, summed alike by a primary", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(request, { maxLength: 40 }), fc.integer({ min: 0, max: 40 }), async (requests, at) => {
        const theirs = new Registry();
        const ours = new Registry();
        const tell = promClient(theirs);
        const tally = new RequestTally(ours, { requests: REQUESTS, durations: DURATIONS }, DURATION_BUCKETS);
        // A scrape midway changes nothing that follows.
        for (const [i, r] of requests.entries()) {
          if (i === at) expect(await ours.metrics()).toBe(await theirs.metrics());
          tell(r.operation, r.status, r.seconds);
          tally.requestDone(r.operation, r.status, r.seconds);
        }
        expect(await ours.metrics()).toBe(await theirs.metrics());
        const [theirJson, ourJson] = [await theirs.getMetricsAsJSON(), await ours.getMetricsAsJSON()];
        expect(ourJson).toEqual(theirJson);
        const sum = (json: typeof theirJson) => AggregatorRegistry.aggregate([json, json]).metrics();
        expect(await sum(ourJson)).toBe(await sum(theirJson));
        theirs.resetMetrics();
        ours.resetMetrics();
        expect(await ours.metrics()).toBe(await theirs.metrics());
      }),
      { numRuns: 200 },
    );
  });
});

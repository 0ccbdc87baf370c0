/**
 * `--against REV`'s arithmetic (figures.ts): a part's figures flattened into named numbers, and each
 * printed as now / REV with its change and spread. No process, no load: the figures are made up.
 */
import { describe, expect, it } from "vitest";
import { compareRatios, upstreamRatios } from "../against-parts.js";
import {
  compareFigures,
  flattenFigures,
  formatBaseline,
  formatFigure,
  formatNumber,
  formatSame,
  median,
} from "../figures.js";

describe("flattenFigures", () => {
  it("names rows by their scenario and keys, leaves out the run's context, `cells` and what is not a number", () => {
    const compare = [
      {
        scenario: "GET /v1/calls/{callId}",
        cells: { c: { rps: 6077, cpuUs: 151, errors: 0, requests: 30_385, unexpected: undefined } },
      },
      { scenario: "GET /v1/agents", cells: { c: { rps: 5000, cpuUs: Number.NaN } } },
    ];
    const run = { command: "npm run bench", date: "x", durationSec: 3, plan: { rounds: 3 }, rows: compare };
    expect(flattenFigures(run)).toEqual({
      "rows · GET /v1/calls/{callId} · c · rps": 6077,
      "rows · GET /v1/calls/{callId} · c · cpuUs": 151,
      "rows · GET /v1/calls/{callId} · c · errors": 0,
      "rows · GET /v1/agents · c · rps": 5000,
    });
  });

  it("keeps a list of rows under `requests`, leaves out a load run's count of requests", () => {
    const exercised = { requests: [{ scenario: "GET /v1/calls/{callId}", max: [{ rps: 9000, requests: 45_000 }] }] };
    expect(flattenFigures(exercised)).toEqual({ "requests · GET /v1/calls/{callId} · max · rps": 9000 });
  });

  it("takes the median of a list of numbers and of each figure of unnamed runs", () => {
    const figures = flattenFigures({
      ms: [5, 1, 3],
      max: [{ rps: 100, p99: 9 }, { rps: 300, p99: 7 }, { rps: 200 }],
    });
    expect(figures).toEqual({ ms: 3, "max · rps": 200, "max · p99": 8 });
  });

  it("keys rows whose names repeat by their runs' medians instead of by name", () => {
    expect(
      flattenFigures([
        { kind: "read", x: 1 },
        { kind: "read", x: 3 },
      ]),
    ).toEqual({ x: 2 });
  });
});

describe("compareFigures and formatFigure", () => {
  const now = [
    { rps: 6000, errors: 0 },
    { rps: 6200, errors: 0 },
    { rps: 6100, errors: 0 },
  ];
  const then = [
    { rps: 7600, errors: 0 },
    { rps: 7700, errors: 0 },
    { rps: 7500, errors: 0 },
  ];

  it("lists the figures that differ, counts those the same everywhere", () => {
    const { rows, same } = compareFigures(now, then);
    expect(same).toEqual(["errors"]);
    expect(rows).toEqual([{ name: "rps", now: [6000, 6200, 6100], then: [7600, 7700, 7500], ratios: [] }]);
  });

  it("prints medians as now / REV with the change and each side's spread", () => {
    const [row] = compareFigures(now, then).rows;
    expect(formatFigure(row, "f086dd4")).toBe(
      "rps  now / f086dd4: 6100 / 7600 (-19.7 %), spread 6000–6200 / 7500–7700",
    );
  });

  it("adds the ratio to a baseline figure measured in the same rounds", () => {
    const baseline = [{ "bare rps": 12_000 }, { "bare rps": 12_400 }, { "bare rps": 12_200 }];
    const [row] = compareFigures(now, then, baseline, (name) =>
      name === "rps" ? [{ label: "bare node:http", figure: "bare rps" }] : [],
    ).rows;
    expect(row.ratios).toEqual([{ label: "bare node:http", now: 6100 / 12_200, then: 7600 / 12_200 }]);
    expect(formatFigure(row, "main")).toMatch(/; over bare node:http 0\.50x \/ 0\.62x$/);
  });

  it("counts the figures the same on both sides by the last part of their names", () => {
    expect(formatSame(["GET /a · c · errors", "GET /b · c · errors", "GET /b · entries"])).toBe(
      "3 figure(s) the same in every round on both sides: errors, entries",
    );
  });

  it("shows part 1's mock figures against bare node:http and Prism of the same request", () => {
    expect(compareRatios("GET /v1/calls/{callId} · cprod · rps")).toEqual([
      { label: "bare node:http", figure: "GET /v1/calls/{callId} · b · rps" },
      { label: "Prism", figure: "GET /v1/calls/{callId} · d · rps" },
    ]);
    expect(compareRatios("GET /v1/calls/{callId} · c · p99")).toEqual([]);
    expect(compareRatios("GET /v1/calls/{callId} · b · rps")).toEqual([]);
  });

  it("without a baseline, takes the ratio to a figure each side measured beside it", () => {
    const side = (door: number, bare: number) => ({ "GET /x · door · p50": door, "GET /x · bare · p50": bare });
    const { rows } = compareFigures([side(2, 1), side(4, 1)], [side(3, 2), side(3, 2)], [], upstreamRatios);
    expect(rows.map((row) => formatFigure(row, "main"))).toEqual([
      "GET /x · door · p50  now / main: 3.00 / 3.00 (+0.0 %), spread 2.00–4.00 / 3.00–3.00; over the bare proxy 3.00x / 1.50x",
      "GET /x · bare · p50  now / main: 1.00 / 2.00 (-50.0 %), spread 1.00–1.00 / 2.00–2.00",
    ]);
  });

  it("says n/a for a figure only one side has", () => {
    const { rows } = compareFigures([{ "coverage ms": 4.5 }], [{}]);
    expect(formatFigure(rows[0], "HEAD~1")).toBe("coverage ms  now / HEAD~1: 4.50 / n/a (n/a), spread 4.50–4.50 / n/a");
  });
});

describe("numbers", () => {
  it("median of an even count is the mean of the middle two; of none NaN", () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });

  it("prints a figure to the precision its size deserves, and a baseline with its spread", () => {
    expect([formatNumber(7663.4), formatNumber(42.25), formatNumber(1.234), formatNumber(0.1234)]).toEqual([
      "7663",
      "42.3",
      "1.23",
      "0.123",
    ]);
    expect([formatNumber(155_957_248), formatNumber(0.000_123_4), formatNumber(0)]).toEqual([
      "155,957,248",
      "0.000123",
      "0.00",
    ]);
    expect(formatBaseline("bare rps", [12_000, 12_400])).toBe("bare rps  12,200, spread 12,000–12,400");
  });
});

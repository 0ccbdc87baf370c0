/** The coverage report from seen keys: every variant in order, the percent floored, judged variants only. */
import { describe, expect, it } from "vitest";
import { generatedSpec } from "../spec.js";
import { variantCatalogue } from "./catalogue.js";
import { coveragePercent, coverageSummary } from "./summary.js";

const catalogue = variantCatalogue(generatedSpec().document);

describe("coverageSummary", () => {
  it("lists every variant in catalogue order with seen and howTo", () => {
    const seen = new Set(["getCall status 404", "listCalls page empty"]);
    const coverage = coverageSummary(catalogue, "w1", seen);
    expect(coverage.workspaceId).toBe("w1");
    expect(coverage.variants.map((v) => `${v.operationId} ${v.kind} ${v.value}`)).toEqual(
      catalogue.variants.map((v) => v.key),
    );
    expect(coverage.variants.filter((v) => v.seen).map((v) => v.value)).toEqual(["empty", "404"]);
    expect(coverage.variants[0].howTo).toBe(catalogue.variants[0].howTo);
    expect(coverage.percent).toBe(Math.floor(200 / catalogue.variants.length));
  });

  it("leaves what cannot be judged out of the list and the percent", () => {
    const statusOnly = coverageSummary(
      catalogue,
      "w",
      new Set(["getCall status 200", "getCall enum status=error"]),
      (v) => v.kind === "status",
    );
    expect(statusOnly.variants.every((v) => v.kind === "status")).toBe(true);
    expect(statusOnly.variants.filter((v) => v.seen)).toHaveLength(1);
    expect(statusOnly.percent).toBe(Math.floor(100 / statusOnly.variants.length));
  });

  it("reaches 100 only when everything is seen", () => {
    const all = new Set(catalogue.variants.map((v) => v.key));
    expect(coverageSummary(catalogue, "w", all).percent).toBe(100);
    all.delete(catalogue.variants[5].key);
    expect(coverageSummary(catalogue, "w", all).percent).toBe(99);
  });
});

describe("coveragePercent", () => {
  it("floors, and is 100 with nothing to see", () => {
    expect(coveragePercent(2, 3)).toBe(66);
    expect(coveragePercent(0, 3)).toBe(0);
    expect(coveragePercent(0, 0)).toBe(100);
  });
});

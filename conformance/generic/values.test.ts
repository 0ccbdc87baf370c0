import { describe, expect, it } from "vitest";
import { MUSEUM } from "../../mock-server/test/public-specs/support.js";
import { checkedDocument, specWithNewOperations } from "../test/generic-spec.js";
import { loadSuiteDocument } from "./spec-option.js";
import { breakages, generateValue, passes, seededUuid, validValue } from "./values.js";

describe("values from schemas", () => {
  it("a valid body: the schema's examples first, else generated; the same seed gives the same value", async () => {
    const museum = await loadSuiteDocument(MUSEUM);
    const pointer = "/components/schemas/SpecialEvent";
    const first = validValue(museum.doc, pointer, "assumed", { seed: 3, marker: "run-1" });
    expect(passes(museum.doc, pointer, "assumed", first)).toBe(true);
    expect(validValue(museum.doc, pointer, "assumed", { seed: 3, marker: "run-1" })).toEqual(first);
    // Examples off: every field generated, still valid, with the run's marker in the text.
    const generated = validValue(museum.doc, pointer, "assumed", {
      seed: 3,
      marker: "run-1",
      examples: false,
    }) as Record<string, unknown>;
    expect(passes(museum.doc, pointer, "assumed", generated)).toBe(true);
    expect(String(generated.name)).toContain("run-1");
  });

  it("formats, patterns, bounds and enums are honoured", () => {
    const doc = checkedDocument(specWithNewOperations()).doc;
    const contact = generateValue(doc, "/components/schemas/ContactCreate", {
      seed: 9,
      marker: "m",
      examples: false,
    }) as Record<string, unknown>;
    expect(contact.email).toMatch(/^m-\d+@example\.com$/);
    expect(["free", "pro"]).toContain(contact.tier);
    const usage = generateValue(doc, "/components/schemas/Usage", { seed: 5, marker: "m", examples: false }) as Record<
      string,
      unknown
    >;
    expect(usage.month).toMatch(/^[0-9]{4}-(0[1-9]|1[0-2])$/);
    expect(passes(doc, "/components/schemas/Usage", "assumed", usage)).toBe(true);
    expect(seededUuid("m", 1)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(seededUuid("m", 1)).not.toBe(seededUuid("m", 2));
  });

  it("each breakage breaks the schema it was made from", () => {
    const schema = { type: "integer", minimum: 1, maximum: 10 };
    const made = breakages(schema, true);
    expect(made.map((b) => b.why)).toEqual([
      "not a number",
      "below the minimum 1",
      "above the maximum 10",
      "not an integer",
    ]);
    const text = breakages({ type: "string", enum: ["a", "b"], maxLength: 3, format: "uuid" }, false);
    expect(text.map((b) => b.value)).toEqual([12345, "zz-not-listed", "aaaa", "not-a-uuid"]);
  });
});

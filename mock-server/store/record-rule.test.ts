/**
 * The record rule applied to records another implementation wrote (store/record-rule.ts): the kit's
 * documented records with any set of the fields only the rule requires left out are kept, those fields
 * filled (`null`, `[]`) and the record valid against the spec as written; a record the documented
 * level refuses, or one the rule cannot complete, stays refused with the reasons that count.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import bundled from "../../generated/openapi-document.js";
import { DEFAULT_WORKSPACE_ID } from "../core/defaults.js";
import { documentedRecords } from "../seed/documented.js";
import { recordErrors, SCHEMA_OF } from "./record-checks.js";
import type { CollectionName } from "./records.js";
import { recordRuler } from "./record-rule.js";
import { without, withValues } from "../test/dotted-paths.js";

type Json = Record<string, any>;

const records = documentedRecords(DEFAULT_WORKSPACE_ID, (t) => t) as unknown as Record<string, any>;
const ruler = recordRuler(bundled);
const ref = (name: CollectionName) => ({ $ref: `#/components/schemas/${SCHEMA_OF[name]}` });
const settle = (name: CollectionName, record: Json) =>
  ruler.settle(ref(name), record, recordErrors(name, record) ?? {}, (r) => recordErrors(name, r));

/**
 * Per kind of record: a documented record, and the fields the spec requires only by its record rule
 * (x-assumption), with what the rule gives them.
 */
const CASES: { name: CollectionName; record: Json; omissible: Record<string, null | []> }[] = [
  {
    name: "agents",
    record: records.agent,
    omissible: {
      "agentSettings.globalPrompt": null,
      "agentSettings.agentTimezone": null,
      "agentSettings.autoVolumeNormalization": null,
      "agentSettings.backgroundNoiseFilter": null,
      "agentSettings.echoCancellation": null,
      "agentSettings.enablePostConversationAnalysis": null,
      "agentSettings.postConversationAnalysisLlmModel": null,
      "agentSettings.postConversationAnalysis": [],
      "agentSettings.webhooks": [],
    },
  },
  {
    name: "calls",
    record: records.calls.find((c: Json) => c.phoneNumber && c.campaign) ?? records.calls[0],
    omissible: { phoneNumber: null, campaign: null, transcript: null },
  },
  {
    name: "phoneNumbers",
    record: records.phoneNumbers[0],
    omissible: {
      inboundAgentId: null,
      outboundAgentId: null,
      outboundPhoneNumber: null,
      terminationSipURI: null,
      friendlyName: null,
    },
  },
  { name: "integrations", record: records.integration, omissible: { description: null, authentication: null } },
  {
    name: "testRuns",
    record: records.testRuns[0],
    omissible: { completedDate: null, isSuccessful: null, remarks: null, conversation: [] },
  },
];

describe("a record lacking only what the record rule adds", () => {
  it.each(CASES)("$name: kept with any set of those fields filled, valid as the spec is written", (c) => {
    expect(recordErrors(c.name, c.record)).toBeUndefined();
    const fields = Object.keys(c.omissible);
    fc.assert(
      fc.property(fc.subarray(fields, { minLength: 1 }), (omitted) => {
        const ruled = settle(c.name, without(c.record, omitted));
        if ("errors" in ruled) throw new Error(JSON.stringify(ruled.errors));
        expect(ruled.filled.map((f) => f.path).sort()).toEqual([...omitted].sort());
        for (const f of ruled.filled) expect(f.value).toEqual(c.omissible[f.path]);
        expect(ruled.record).toEqual(withValues(c.record, Object.fromEntries(omitted.map((p) => [p, c.omissible[p]]))));
        expect(recordErrors(c.name, ruled.record)).toBeUndefined();
      }),
      { numRuns: 40 },
    );
  });

  it("fills what a nested record lacks, and each item of a list", () => {
    const batch = structuredClone(records.batchRun);
    expect(batch.testCases.length).toBeGreaterThan(0);
    for (const testCase of batch.testCases) delete testCase.mockToolData;
    const ruled = settle("batchRuns", batch);
    if ("errors" in ruled) throw new Error(JSON.stringify(ruled.errors));
    expect(ruled.filled).toEqual(batch.testCases.map(() => ({ path: "testCases[].mockToolData", value: [] })));
    expect((ruled.record as Json).testCases.map((t: Json) => t.mockToolData)).toEqual(batch.testCases.map(() => []));

    const call = without(CASES[1].record, ["phoneNumber.friendlyName"]);
    expect(call.phoneNumber).toBeTruthy();
    const filled = settle("calls", call);
    expect(filled).toEqual({
      record: withValues(CASES[1].record, { "phoneNumber.friendlyName": null }),
      filled: [{ path: "phoneNumber.friendlyName", value: null }],
    });
  });

  it("leaves the record it was given as it was", () => {
    const agent = without(records.agent, ["agentSettings.webhooks"]);
    const before = structuredClone(agent);
    settle("agents", agent);
    expect(agent).toEqual(before);
  });
});

describe("a record the documented level refuses, or the rule cannot complete", () => {
  it("is refused for a value outside its documented enum, with that reason only", () => {
    const agent = without({ ...records.agent, welcomeMessageType: "loud" }, ["agentSettings.globalPrompt"]);
    expect(settle("agents", agent)).toEqual({ errors: { welcomeMessageType: "must be one of: static, prompt" } });
  });

  it("is refused without its documented id", () => {
    const agent = without(records.agent, ["agentId", "agentSettings.webhooks"]);
    expect(settle("agents", agent)).toEqual({ errors: { agentId: "is required" } });
  });

  it("is refused without a documented field the reference writes as null (a call's startTime)", () => {
    const ruled = settle("calls", without(CASES[1].record, ["startTime", "transcript"]));
    expect(ruled).toEqual({ errors: { startTime: "is required" } });
  });

  it("is refused when it lacks a field the rule cannot fill (never null, no list)", () => {
    const agent = without(records.agent, ["agentSettings.llmTemperature", "agentSettings.globalPrompt"]);
    expect(settle("agents", agent)).toEqual({ errors: { "agentSettings.llmTemperature": "is required" } });
  });

  it("is refused when the document states no record rule", () => {
    const { "x-record-rule": _rule, ...document } = structuredClone(bundled) as Json;
    const agent = without(records.agent, ["agentSettings.globalPrompt"]);
    const errors = recordErrors("agents", agent)!;
    const ruled = recordRuler(document).settle(ref("agents"), agent, errors, (r) => recordErrors("agents", r));
    expect(ruled).toEqual({ errors });
  });
});

describe("a record schema the document writes inline", () => {
  it("is found in the document, judged and filled the same", () => {
    const document = structuredClone(bundled) as Json;
    const inline = { ...document.components.schemas.PhoneNumber };
    document.paths["/v1/phone-number"].get.responses["200"].content["application/json"].schema = {
      type: "object",
      properties: { data: { type: "array", items: inline } },
    };
    const number = without(records.phoneNumbers[0], ["friendlyName"]);
    const full = (r: Json) => recordErrors("phoneNumbers", r);
    const ruled = recordRuler(document).settle(inline, number, full(number)!, full);
    expect(ruled).toEqual({
      record: { ...number, friendlyName: null },
      filled: [{ path: "friendlyName", value: null }],
    });
  });
});

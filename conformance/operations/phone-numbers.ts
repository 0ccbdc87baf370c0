/** E14 list phone numbers (with its `totalCounts`) and E15 update by E.164 path. */
import { randomInt } from "node:crypto";
import { defineRules, obj, type RuleContext } from "../lib/rule.js";
import { fetchPage, listOf, walk, type ListConfig } from "./list-pages.js";
import { orderRule } from "./ordering.js";
import { paginationRules } from "./pagination.js";
import { listMatchesStore } from "./store-agreement.js";

const cfg: ListConfig = {
  ...listOf("listPhoneNumbers"),
  path: "/v1/phone-number",
  idOf: (p) => p.sipPhoneNumber,
};
const pathOf = (number: string) => `/v1/phone-number/${encodeURIComponent(number)}`;

async function findNumber(t: RuleContext, number: string): Promise<Record<string, any> | undefined> {
  const result = await walk(t, cfg, {}, 20, 10);
  return result?.items.find((p) => p.sipPhoneNumber === number);
}

/** E15 takes these body fields for the record fields of 2.10 the rules change (all strings). */
const BODY_FIELD: Record<string, string> = {
  friendlyName: "friendlyName",
  terminationSipURI: "terminationSipUri",
  inboundAgentId: "inboundAgentId",
  outboundAgentId: "outboundAgentId",
};

/**
 * The number the run may change, with `fields` (2.10 names) about to change. On a foreign target each is
 * put back once the rule ends and read back (RuleContext.willRestore); E15 takes strings only, so a field
 * that was null cannot be put back, and the rule is skipped rather than leave it changed.
 */
async function patchable(t: RuleContext, fields: string[]): Promise<Record<string, any>> {
  const number = t.fixtures.phoneNumber;
  if (!number) return t.skip("the target lists no phone number");
  const before = await findNumber(t, number);
  if (!before) return t.skip(`phone number ${number} is not in the list`);
  if (t.fixtures.isMock) return before;
  const unrestorable = fields.filter((f) => typeof before[f] !== "string");
  if (unrestorable.length > 0)
    return t.skip(
      `would change ${unrestorable.join(", ")} of ${number}, which E15 cannot put back (${unrestorable.map((f) => `${f} is ${JSON.stringify(before[f] ?? null)}`).join(", ")}; E15 takes strings only)`,
    );
  const body = Object.fromEntries(fields.map((f) => [BODY_FIELD[f], before[f]]));
  t.willRestore({
    kind: "phone number",
    id: number,
    fields,
    replay: {
      operationId: "updatePhoneNumber",
      method: "PATCH",
      path: pathOf(number),
      body,
      expect: Object.fromEntries(fields.map((f) => [f, before[f]])),
    },
    restore: async () => void (await t.call("updatePhoneNumber", { method: "PATCH", path: pathOf(number), body })),
    verify: async () => {
      const after = await findNumber(t, number);
      return after
        ? fields
            .filter((f) => after[f] !== before[f])
            .map((f) => `${f} ${JSON.stringify(after[f])} (was ${JSON.stringify(before[f])})`)
        : ["the number is no longer listed"];
    },
  });
  return before;
}

export const phoneNumberRules = defineRules("phone-numbers", [
  ...paginationRules(cfg),
  orderRule(cfg, { knownIds: (f) => f.known.phoneNumbers }),
  listMatchesStore(cfg, { collection: "phoneNumbers", idOf: (p) => p.sipPhoneNumber }),
  {
    id: "listPhoneNumbers.total-counts-name",
    operationId: "listPhoneNumbers",
    level: "documented",
    readOnly: true,
    description: "The phone number list names its total totalCounts, in place of totalCount (2.1).",
    run: async (t) => {
      const page = await fetchPage(t, cfg);
      const body = obj(page.exchange);
      t.expect(Number.isInteger(body.totalCounts), {
        pointer: "/totalCounts",
        expected: "an integer",
        actual: body.totalCounts,
        message: "totalCounts carries the total",
      });
      t.expect(!("totalCount" in body), {
        pointer: "/totalCount",
        expected: "(absent)",
        actual: body.totalCount,
        message: "totalCounts replaces totalCount",
      });
    },
  },
  {
    id: "updatePhoneNumber.by-e164",
    operationId: "updatePhoneNumber",
    level: "documented",
    readOnly: false,
    description: "PATCH /v1/phone-number/{E.164} changes the label, answers the number, and the list shows it.",
    run: async (t) => {
      const before = await patchable(t, ["friendlyName"]);
      const label = `${t.fixtures.runId} label`;
      for (const path of [pathOf(before.sipPhoneNumber), `/v1/phone-number/${before.sipPhoneNumber}`]) {
        const ex = await t.call("updatePhoneNumber", { method: "PATCH", path, body: { friendlyName: label } });
        if (!t.expectStatus(ex, 200, `E15 on ${path} (the + sent ${path.includes("%2B") ? "encoded" : "literally"})`))
          continue;
        t.expectEqual(
          obj(ex).sipPhoneNumber,
          before.sipPhoneNumber,
          "/sipPhoneNumber",
          "E15 answers the number of the path",
        );
        t.expectEqual(obj(ex).friendlyName, label, "/friendlyName", "E15 applies friendlyName");
      }
      const after = await findNumber(t, before.sipPhoneNumber);
      t.expectEqual(after?.friendlyName, label, "/data/*/friendlyName", "E14 shows what E15 changed");
    },
  },
  {
    id: "updatePhoneNumber.partial",
    operationId: "updatePhoneNumber",
    level: "assumed",
    readOnly: false,
    description:
      "Omitted fields stay unchanged; terminationSipUri sets terminationSipURI (assumption: partial update like E4).",
    run: async (t) => {
      const before = await patchable(t, ["terminationSipURI"]);
      const ex = await t.call("updatePhoneNumber", {
        method: "PATCH",
        path: pathOf(before.sipPhoneNumber),
        body: { terminationSipUri: "sip:conformance.example.com" },
      });
      if (!t.expectStatus(ex, 200)) return;
      const after = obj(ex);
      t.expectEqual(
        after.terminationSipURI,
        "sip:conformance.example.com",
        "/terminationSipURI",
        "terminationSipUri sets terminationSipURI",
      );
      for (const field of [
        "friendlyName",
        "inboundAgentId",
        "outboundAgentId",
        "outboundPhoneNumber",
        "active",
        "provider",
      ]) {
        t.expectEqual(after[field], before[field], `/${field}`, `${field} was not sent and stays unchanged`);
      }
    },
  },
  {
    id: "updatePhoneNumber.password-not-echoed",
    operationId: "updatePhoneNumber",
    level: "documented",
    readOnly: false,
    description: "trunkPassword is accepted and never returned (2.10 has no such field).",
    run: async (t) => {
      if (!t.fixtures.isMock) return t.skip("would change the SIP trunk credentials of a live number");
      const before = await patchable(t, []);
      const secret = `pw-${t.fixtures.runId}-secret`;
      const ex = await t.call("updatePhoneNumber", {
        method: "PATCH",
        path: pathOf(before.sipPhoneNumber),
        body: { sipTrunkName: "trunk", trunkUsername: "user", trunkPassword: secret },
      });
      if (!t.expectStatus(ex, 200)) return;
      t.expect(!ex.text.includes(secret), {
        pointer: "",
        expected: "no trunk password",
        actual: "the password",
        message: "E15 does not echo trunkPassword",
      });
      const list = await fetchPage(t, cfg, { size: 1000 });
      t.expect(!list.exchange.text.includes(secret), {
        pointer: "/data",
        expected: "no trunk password",
        actual: "the password",
        message: "E14 does not list trunkPassword",
        exchange: list.exchange,
      });
    },
  },
  {
    id: "updatePhoneNumber.agents",
    operationId: "updatePhoneNumber",
    level: "assumed",
    readOnly: false,
    description: "inboundAgentId and outboundAgentId are applied; an unknown agent answers 404 (assumption).",
    run: async (t) => {
      const before = await patchable(t, ["inboundAgentId", "outboundAgentId"]);
      const agentId = t.fixtures.agentId;
      if (!agentId) return t.skip("no agent known");
      const ex = await t.call("updatePhoneNumber", {
        method: "PATCH",
        path: pathOf(before.sipPhoneNumber),
        body: { inboundAgentId: agentId, outboundAgentId: agentId },
      });
      if (t.expectStatus(ex, 200)) {
        t.expectEqual(obj(ex).inboundAgentId, agentId, "/inboundAgentId", "inboundAgentId is applied");
        t.expectEqual(obj(ex).outboundAgentId, agentId, "/outboundAgentId", "outboundAgentId is applied");
      }
      t.expectStatus(
        await t.call("updatePhoneNumber", {
          method: "PATCH",
          path: pathOf(before.sipPhoneNumber),
          body: { inboundAgentId: `missing-${t.fixtures.runId}` },
        }),
        404,
      );
    },
  },
  {
    id: "updatePhoneNumber.unknown-number",
    operationId: "updatePhoneNumber",
    level: "documented",
    readOnly: false,
    description: "A well-formed E.164 number the workspace does not have answers 404.",
    run: async (t) => {
      const number = `+1999${String(randomInt(1_000_000, 9_999_999))}`;
      t.expectStatus(
        await t.call("updatePhoneNumber", { method: "PATCH", path: pathOf(number), body: { friendlyName: "x" } }),
        404,
      );
    },
  },
  {
    id: "updatePhoneNumber.invalid-requests",
    operationId: "updatePhoneNumber",
    level: "assumed",
    readOnly: false,
    description: "A path that is not E.164 and an unknown body field answer 400 (assumptions).",
    run: async (t) => {
      for (const path of ["/v1/phone-number/14155550123", "/v1/phone-number/not-a-number"]) {
        const ex = await t.call("updatePhoneNumber", { method: "PATCH", path, body: { friendlyName: "x" } });
        if (t.expectStatus(ex, 400, `${path} is not E.164`)) {
          t.expect(typeof obj(ex).validationErrors?.phoneNumber === "string", {
            pointer: "/validationErrors/phoneNumber",
            expected: "a message",
            actual: obj(ex).validationErrors,
            message: "validationErrors names phoneNumber",
          });
        }
      }
      // Bodies that must be refused, sent to a real number: should the target accept one, its label is put back.
      const number = t.fixtures.phoneNumber
        ? ((await patchable(t, ["friendlyName"])).sipPhoneNumber as string)
        : "+14155550100";
      t.expectStatus(
        await t.call("updatePhoneNumber", { method: "PATCH", path: pathOf(number), body: { nickname: "x" } }),
        400,
        "an unknown field is rejected",
      );
      // The reference types every body field as a string.
      for (const body of [{ friendlyName: 42 }, { trunkPassword: true }]) {
        const ex = await t.call("updatePhoneNumber", { method: "PATCH", path: pathOf(number), body });
        if (t.expectStatus(ex, 400, `${JSON.stringify(body)} is not a string`)) {
          const field = Object.keys(body)[0];
          t.expect(typeof obj(ex).validationErrors?.[field] === "string", {
            pointer: `/validationErrors/${field}`,
            expected: "a message",
            actual: obj(ex).validationErrors,
            message: `validationErrors names ${field}`,
          });
        }
      }
    },
  },
]);
export { cfg as phoneNumbersList };

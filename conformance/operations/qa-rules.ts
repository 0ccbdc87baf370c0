/** E12 get QA rule and E13 delete QA rule (2.12). The reference has no list of QA rules: ids come from fixtures. */
import { randomUUID } from "node:crypto";
import { defineRules, obj } from "../lib/rule.js";
import { getMatchesStore } from "./store-agreement.js";

const path = (id: string) => `/v1/qa-rules/${encodeURIComponent(id)}`;

export const qaRuleRules = defineRules("qa-rules", [
  {
    id: "getQaRule.known",
    operationId: "getQaRule",
    level: "documented",
    readOnly: true,
    description: "E12 returns the rule asked for.",
    run: async (t) => {
      const id = t.fixtures.qaRuleId;
      if (!id) return t.skip("no QA rule id known (pass --qa-rule-id)");
      const ex = await t.call("getQaRule", { method: "GET", path: path(id) });
      if (t.expectStatus(ex, 200)) t.expectEqual(obj(ex).qaRuleId, id, "/qaRuleId", "E12 returns the rule asked for");
    },
  },
  getMatchesStore("getQaRule", { collection: "qaRules", idOf: (r) => r.qaRuleId }, (f) => [f.qaRuleId], path),
  {
    id: "getQaRule.unknown-id",
    operationId: "getQaRule",
    level: "documented",
    readOnly: true,
    description: "An unknown qaRuleId answers 404.",
    run: async (t) => void t.expectStatus(await t.call("getQaRule", { method: "GET", path: path(randomUUID()) }), 404),
  },
  {
    id: "deleteQaRule.then-gone",
    operationId: "deleteQaRule",
    level: "documented",
    readOnly: false,
    description:
      "E13 answers 204 with no body; the rule is then gone for good (permanent): E12 twice, a second E13 and E12 again all answer 404, while another rule still answers 200.",
    run: async (t) => {
      const id = t.fixtures.qaRuleIdToDelete;
      if (!id) return t.skip("no QA rule the run may delete (pass --qa-rule-id-to-delete)");
      const other = t.fixtures.qaRuleId;
      const before = await t.call("getQaRule", { method: "GET", path: path(id) });
      // Run again after a DELETE whose answer a gateway swallowed: if it went through, its 204 cannot be judged.
      if (before.status === 404 && t.isRerun)
        return t.inconclusive(
          `the first run's DELETE ${path(id)} may have gone through (the rule is gone); its answer was lost`,
        );
      t.expectStatus(before, 200, "the rule to delete exists first");
      const ex = await t.call("deleteQaRule", { method: "DELETE", path: path(id) });
      if (!t.expectStatus(ex, 204)) return;
      t.expectEqual(ex.text, "", "", "204 has no body");
      // Read more than once: a cache or a lagging replica may still serve the rule on a later read.
      const reads = [
        ["getQaRule", "E12 after E13"],
        ["getQaRule", "E12 read again after E13"],
        ["deleteQaRule", "a second E13"],
        ["getQaRule", "E12 after the second E13"],
      ] as const;
      for (const [operationId, what] of reads) {
        t.expectStatus(
          await t.call(operationId, { method: operationId === "getQaRule" ? "GET" : "DELETE", path: path(id) }),
          404,
          `${what} answers 404`,
        );
        if (other)
          t.expectStatus(
            await t.call("getQaRule", { method: "GET", path: path(other) }),
            200,
            `E13 removes only the rule named: another rule still answers 200 (${what})`,
          );
      }
    },
  },
  {
    id: "deleteQaRule.unknown-id",
    operationId: "deleteQaRule",
    level: "documented",
    readOnly: false,
    description: "E13 on an unknown qaRuleId answers 404.",
    run: async (t) =>
      void t.expectStatus(await t.call("deleteQaRule", { method: "DELETE", path: path(randomUUID()) }), 404),
  },
]);

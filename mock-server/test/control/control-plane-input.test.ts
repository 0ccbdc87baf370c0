/**
 * The control plane refuses records the /v1 operations could not serve: each of these used to be
 * stored (201/200) and then turn every list of its collection into a 500, or failed at once with a 500.
 */
import { describe, expect, it } from "vitest";
import { expectErrorBody, useMock } from "../harness.js";

const t = useMock();

const post = (path: string, body: string, method = "POST") =>
  t.raw(path, { method, body, headers: { "Content-Type": "application/json" }, key: null });

describe("control-plane records must have the platform's shape", () => {
  it.each([
    ["calls", '{"status":"bogus"}', "status"],
    ["calls", '{"callId":""}', "callId"],
    ["agents", '{"agentName":123}', "agentName"],
    ["webhooks", '{"active":"yes"}', "active"],
    ["phoneNumbers", '{"sipPhoneNumber":"not-a-number"}', "sipPhoneNumber"],
    ["knowledgeBases", '{"files":5}', "files"],
  ])("a %s fill of %s is refused (400) and the /v1 lists keep working", async (collection, body, field) => {
    const res = await post(`/__mock/workspaces/default/${collection}`, body);
    expect(res.status).toBe(400);
    const error = await res.json();
    expectErrorBody(error, 400, `/__mock/workspaces/default/${collection}`);
    expect(error.validationErrors).toHaveProperty(field);
    for (const path of [
      "/v1/calls?size=100",
      "/v1/agents?size=100",
      "/v1/webhooks?size=100",
      "/v1/phone-number?size=100",
    ])
      expect((await t.raw(path)).status, path).toBe(200);
  });

  it("a partial a record builder cannot use is a 400, not a 500", async () => {
    const res = await post("/__mock/workspaces/default/qaRules", '{"agents":"x"}');
    expect(res.status).toBe(400);
  });

  it("a snapshot with an invalid record is refused whole, and the workspace is unchanged", async () => {
    const before = await (await t.raw("/__mock/workspaces/default/calls", { key: null })).json();
    const res = await post("/__mock/workspaces/default/snapshot", '{"calls":[{"callId":"x"}]}', "PUT");
    expect(res.status).toBe(400);
    expect((await res.json()).validationErrors).toHaveProperty(["calls[0].status"]);
    expect(await (await t.raw("/__mock/workspaces/default/calls", { key: null })).json()).toEqual(before);
    expect((await t.raw("/v1/calls/x")).status).toBe(404);
  });
});

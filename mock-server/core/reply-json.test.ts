/** ReplyJson: byte for byte JSON.stringify, with its exact UTF-8 length, and record JSON reused by identity. */
import { describe, expect, it } from "vitest";
import { wrapPage } from "./pagination.js";
import { ReplyJson } from "./reply-json.js";

const replyJson = new ReplyJson();
const readReplyJson = (body: unknown) => replyJson.read(body);

const call = (id: string, extra: object = {}) => ({
  callId: id,
  status: "ended",
  agent: { agentId: "a", name: "Ada", status: "Live" },
  duration: null,
  ...extra,
});

describe("ReplyJson", () => {
  it.each([
    ["a page", wrapPage([call("1"), call("2", { note: 'é \u2028 "q" 😀 \ud800' })], 12, { page: 1, size: 2 })],
    ["an empty page", wrapPage([], 0, { page: 0, size: 10 })],
    [
      "a phone number page (totalCounts)",
      wrapPage([{ sipPhoneNumber: "+15550100" }], 1, { page: 0, size: 10 }, "totalCounts"),
    ],
    ["a record", call("3")],
    ["an object whose data is not first", { page: 0, data: [call("4")] }],
    ["an object whose data holds non-records", { data: [1, null, "x"], page: 0 }],
    ["an object holding only data", { data: [call("5")] }],
    ["an array", [call("6")]],
    ["a string", "plain"],
  ])("%s", (_name, body) => {
    for (let read = 0; read < 2; read++) {
      const { json, bytes } = readReplyJson(body);
      expect(json).toBe(JSON.stringify(body));
      expect(bytes).toBe(Buffer.byteLength(json));
    }
  });

  it("serves the new JSON of a record replaced by a new object", () => {
    const before = call("7");
    const after = { ...before, status: "error" };
    expect(readReplyJson(wrapPage([before], 1, { page: 0, size: 1 })).json).toContain('"status":"ended"');
    expect(readReplyJson(wrapPage([after], 1, { page: 0, size: 1 })).json).toContain('"status":"error"');
  });
});

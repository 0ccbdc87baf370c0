import { describe, expect, it } from "vitest";
import { replyDrift } from "./validation.js";

const noErrors = () => [];
const isObject = (body: unknown) => typeof body === "object" && body !== null;

describe("replyDrift", () => {
  it("passes a reply that fits its documented status", () => {
    expect(replyDrift({ status: 200, body: {} }, isObject, noErrors)).toBeUndefined();
    expect(replyDrift({ status: 204 }, null, noErrors)).toBeUndefined();
  });

  it("names an undocumented status, and a body where the status documents none", () => {
    expect(replyDrift({ status: 418, body: {} }, undefined, noErrors)).toBe("status 418 is not documented");
    expect(replyDrift({ status: 204, body: {} }, null, noErrors)).toBe("status 204 must have no body");
  });

  it("lists at most five of the check's errors, the root as /", () => {
    const errors = () =>
      ["", "/a", "/b", "/c", "/d", "/e"].map((instancePath) => ({ instancePath, message: "is wrong" }));
    expect(replyDrift({ status: 200, body: 1 }, isObject, errors)).toBe(
      "body of 200 does not match the spec: / is wrong; /a is wrong; /b is wrong; /c is wrong; /d is wrong",
    );
  });
});

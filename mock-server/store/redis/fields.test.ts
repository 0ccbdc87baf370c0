import { describe, expect, it } from "vitest";
import type { MockChange, WorkspaceChange } from "../changes.js";
import { mockChangeOf, mockFieldOf, workspaceChangeOf, workspaceFieldOf } from "./fields.js";

describe("Redis fields", () => {
  it("names each workspace entry as before, and reads each name back to its entry", () => {
    const entries: [WorkspaceChange, string][] = [
      [{ kind: "record", collection: "calls", id: "c:1" }, "r:calls:c:1"],
      [{ kind: "generic", collection: "store.order", id: "o:1" }, "g:store.order:o:1"],
      [{ kind: "delivery", id: "d1" }, "d:d1"],
      [{ kind: "credential", id: "i1" }, "c:i1"],
      [{ kind: "trunk", number: "+1555" }, "t:+1555"],
      [{ kind: "callPlan", callId: "c2" }, "p:c2"],
      [{ kind: "task", id: "call:c2" }, "k:call:c2"],
      [{ kind: "clock" }, "clock"],
      [{ kind: "random" }, "random"],
    ];
    for (const [change, field] of entries) {
      expect(workspaceFieldOf(change)).toBe(field);
      expect(workspaceChangeOf(field)).toEqual(change);
    }
  });

  it("names each mock-wide entry as before, and reads each name back to its entry", () => {
    const entries: [MockChange, string][] = [
      [{ kind: "workspace", workspaceId: "ws-1-ab" }, "w:ws-1-ab"],
      [{ kind: "created" }, "created"],
      [{ kind: "rootClock" }, "clock"],
      [{ kind: "fault", faultId: "fault-3" }, "f:fault-3"],
      [{ kind: "faultCount" }, "faults"],
    ];
    for (const [change, field] of entries) {
      expect(mockFieldOf(change)).toBe(field);
      expect(mockChangeOf(field)).toEqual(change);
    }
  });

  it("refuses a name it did not make", () => {
    expect(() => workspaceChangeOf("r:nothing:1")).toThrow(/unknown workspace field/);
    expect(() => workspaceChangeOf("x:1")).toThrow(/unknown workspace field/);
    expect(() => mockChangeOf("q:1")).toThrow(/unknown mock field/);
  });
});

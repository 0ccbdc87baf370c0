import { describe, expect, it } from "vitest";
import { Clock } from "../core/clock.js";
import type { WorkspaceChange } from "./changes.js";
import { GenericCollections } from "./generic-records.js";
import { restoreState, serializeState, type PersistedState } from "./state.js";
import { Workspace } from "./workspace.js";
import { applyEntry, entriesOf, readEntry } from "./workspace-state.js";

const options = { workspaceId: "w1", apiKey: "k1", seed: 1, empty: true, readOnly: false };

describe("GenericCollections", () => {
  it("keeps records by the id field it is given, told to the tracker before each change", () => {
    const told: string[] = [];
    const generic = new GenericCollections((collection, id) => told.push(`${collection}:${id}`));
    const pets = generic.collection("pets", "petId");
    pets.create({ petId: 7, name: "Rex" });
    pets.create({ petId: 8, name: "Tom" });
    expect(pets.get("7")).toEqual({ petId: 7, name: "Rex" });
    expect(generic.collection("pets")).toBe(pets);
    expect([...generic.ids()]).toEqual([
      ["pets", "7"],
      ["pets", "8"],
    ]);
    generic.clear();
    expect(told).toEqual(["pets:7", "pets:8", "pets:7", "pets:8"]);
    expect(pets.size).toBe(0);
  });

  it("names the id field late: a record put back before the layer asked is found by it after", () => {
    const generic = new GenericCollections();
    generic.collection("orders").put("o-1", { seq: 0, value: { orderId: "o-1" } });
    const orders = generic.collection("orders", "orderId");
    orders.create({ orderId: "o-2" });
    expect(orders.all().map((o) => o.orderId)).toEqual(["o-1", "o-2"]);
  });

  it("refuses a collection name with a colon (the Redis field name would be ambiguous)", () => {
    expect(() => new GenericCollections().collection("a:b")).toThrow(/colon/);
  });
});

describe("a workspace's generic records as state", () => {
  it("are entries read and put back like any other, and go with a reset", () => {
    const a = new Workspace(options, new Clock({ mode: "virtual" }));
    a.generic.collection("pets", "id").create({ id: 1, name: "Rex" });
    const entries = entriesOf(a).filter(
      (e): e is Extract<WorkspaceChange, { kind: "generic" }> => e.kind === "generic",
    );
    expect(entries).toEqual([{ kind: "generic", collection: "pets", id: "1" }]);
    const b = new Workspace(options, new Clock({ mode: "virtual" }));
    applyEntry(b, entries[0], readEntry(a, entries[0]));
    expect(b.generic.collection("pets", "id").get("1")).toEqual({ id: 1, name: "Rex" });
    applyEntry(b, entries[0], undefined);
    expect(b.generic.collection("pets").size).toBe(0);
    a.clear();
    expect(a.generic.collection("pets").size).toBe(0);
  });

  it("are saved in the state file and restored in their order", () => {
    const clock = new Clock({ mode: "virtual" });
    const a = new Workspace(options, clock);
    const pets = a.generic.collection("pets", "id");
    for (const id of [3, 1, 2]) pets.create({ id, name: `pet ${id}` });
    const text = serializeState({ list: () => [a] }, clock.iso());
    const restored: Workspace[] = [];
    restoreState(JSON.parse(text) as PersistedState, {
      clock,
      get: () => undefined,
      add: (o) => {
        const w = new Workspace(o, new Clock({ mode: "virtual" }));
        restored.push(w);
        return w;
      },
    });
    expect(
      restored[0].generic
        .collection("pets", "id")
        .all()
        .map((p) => p.id),
    ).toEqual([3, 1, 2]);
  });
});

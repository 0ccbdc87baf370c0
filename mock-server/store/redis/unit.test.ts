/**
 * A unit's bookkeeping (unit.ts): who holds it and in what order, what work on it noted and how that
 * is put back, and what is sent for it.
 */
import { describe, expect, it } from "vitest";
import type { Fields } from "./fields.js";
import { turns } from "./test/fake-redis.js";
import { changed, hold, holdNew, newUnit, note, putBack, type Unit, writeOf } from "./unit.js";

type Entry = { kind: "entry"; key: string };

/** A unit over a plain map: each entry is one field. */
function mapUnit(name: string, values: Record<string, unknown> = {}): { unit: Unit<never>; map: Map<string, unknown> } {
  const map = new Map(Object.entries(values));
  const fields: Fields<Entry> = {
    fieldOf: (change) => change.key,
    changeOf: (field) => ({ kind: "entry", key: field }),
    read: (change) => map.get(change.key),
    apply: (change, value) => void (value === undefined ? map.delete(change.key) : map.set(change.key, value)),
    all: () => [...map.keys()].map((key) => ({ kind: "entry", key })),
    clear: () => map.clear(),
  };
  return { unit: newUnit(name, fields as never), map };
}

const entry = (key: string) => ({ kind: "entry", key }) as never;

describe("holding units", () => {
  it("never lets two holders of a shared unit in at once", async () => {
    const { unit: a } = mapUnit("w:a");
    const { unit: b } = mapUnit("w:b");
    const inside = new Set<Unit>();
    const overlaps: string[] = [];
    const holder = (units: Unit[]) => async () => {
      for (const u of units) if (inside.has(u)) overlaps.push(u.name);
      for (const u of units) inside.add(u);
      await turns(3);
      for (const u of units) inside.delete(u);
    };
    await Promise.all([[a, b], [b], [a], [b, a], [a]].map((units) => hold(units, holder(units))));
    expect(overlaps).toEqual([]);
  });

  it("runs holders of different units at once", async () => {
    const { unit: a } = mapUnit("w:a");
    const { unit: b } = mapUnit("w:b");
    const order: string[] = [];
    const slow = (name: string) => async () => {
      order.push(`${name} in`);
      await turns(5);
      order.push(`${name} out`);
    };
    await Promise.all([hold([a], slow("a")), hold([b], slow("b"))]);
    expect(order.slice(0, 2).sort()).toEqual(["a in", "b in"]);
  });

  it("takes units in name order, so two holders of the same pair never wait on each other", async () => {
    const { unit: m } = mapUnit("m");
    const { unit: w } = mapUnit("w:x");
    const both = await Promise.all([hold([w, m], () => "wm"), hold([m, w], () => "mw")]);
    expect(both).toEqual(["wm", "mw"]);
  });

  it("releases a unit whose holder threw", async () => {
    const { unit } = mapUnit("w:a");
    await expect(hold([unit], () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await hold([unit], () => "next")).toBe("next");
  });

  it("holds a unit made by work at once: a later holder waits for the release", async () => {
    const { unit } = mapUnit("w:new");
    const release = holdNew(unit);
    let entered = false;
    const later = hold([unit], () => void (entered = true));
    await turns(10);
    expect(entered).toBe(false);
    release();
    await later;
    expect(entered).toBe(true);
  });
});

describe("what work noted", () => {
  it("notes each entry once, with its value before the first change, only while recording", () => {
    const { unit, map } = mapUnit("w:a", { x: 1 });
    note(unit, entry("x"));
    expect(unit.before).toBeUndefined();
    unit.before = new Map();
    unit.recording = true;
    note(unit, entry("x"));
    map.set("x", 2);
    note(unit, entry("x"));
    note(unit, entry("y"));
    map.set("y", 3);
    expect([...unit.before.entries()].map(([f, b]) => [f, b.value])).toEqual([
      ["x", 1],
      ["y", undefined],
    ]);
    expect(changed(unit)).toBe(true);
  });

  it("puts back what was noted, and asks for a whole read of a unit that was to be replaced", () => {
    const { unit, map } = mapUnit("w:a", { x: 1 });
    unit.version = 7;
    unit.before = new Map();
    unit.recording = true;
    note(unit, entry("x"));
    note(unit, entry("y"));
    map.set("x", 2).set("y", 3);
    putBack(unit);
    expect(Object.fromEntries(map)).toEqual({ x: 1 });
    expect(unit.version).toBe(7);
    expect(changed(unit)).toBe(false);
    unit.whole = true;
    putBack(unit);
    expect(unit.version).toBe(-1);
  });

  it("sends the changed fields as JSON ('' for a deleted one), all of them when whole, none when dropped", () => {
    const { unit, map } = mapUnit("w:a", { x: 1, y: { a: [1] } });
    unit.version = 3;
    unit.before = new Map();
    unit.recording = true;
    note(unit, entry("x"));
    note(unit, entry("z"));
    map.set("x", "two");
    expect(writeOf(unit)).toEqual({
      unit: "w:a",
      expected: 3,
      mode: "fields",
      values: [
        ["x", '"two"'],
        ["z", ""],
      ],
    });
    unit.whole = true;
    expect(writeOf(unit).values).toEqual([
      ["x", '"two"'],
      ["y", '{"a":[1]}'],
    ]);
    unit.dropped = true;
    expect(writeOf(unit)).toMatchObject({ mode: "drop", values: [] });
  });

  it("refuses to send a fields write for a unit no work noted on, naming it", () => {
    const { unit } = mapUnit("w:a");
    expect(() => writeOf(unit)).toThrow("unit w:a is written with no work noted on it");
  });
});

import { describe, expect, it } from "vitest";
import { Collection } from "./collection.js";
import { StoreError } from "../core/errors.js";

interface Item {
  id: string;
  colour: string;
}

function collection(changed?: (id: string) => void): Collection<Item> {
  return new Collection<Item>(
    "items",
    { idOf: (i) => i.id, keys: { colour: (i) => i.colour }, indexes: [["colour"]] },
    changed,
  );
}

describe("Collection", () => {
  it("tells `changed` of each record before it changes, and not of reads or puts", () => {
    const seen: string[] = [];
    const items = collection((id) => seen.push(`${id}:${items.get(id)?.colour ?? "-"}`));
    items.create({ id: "a", colour: "red" });
    items.create({ id: "b", colour: "blue" });
    items.replace("a", { id: "a", colour: "green" });
    items.delete("b");
    items.get("a");
    items.page({ where: {}, order: "oldest", page: 0, size: 10 });
    items.put("c", { seq: 9, value: { id: "c", colour: "red" } });
    items.clear();
    // Each told while the record still had its value before: what a store notes to undo.
    expect(seen).toEqual(["a:-", "b:-", "a:red", "b:blue", "a:green", "c:red"]);
  });

  it("puts a record at its place in creation order, and new records after it", () => {
    const items = collection();
    items.create({ id: "a", colour: "red" });
    items.create({ id: "b", colour: "red" });
    items.put("z", { seq: 0.5, value: { id: "z", colour: "red" } } as never);
    items.put("b", undefined);
    items.create({ id: "c", colour: "red" });
    expect(items.all().map((i) => i.id)).toEqual(["a", "z", "c"]);
    expect(items.entryOf("c")?.seq).toBe(2);
    const page = items.page({ where: { colour: "red" }, order: "newest", page: 0, size: 2 });
    expect(page).toEqual({ items: [items.get("c"), items.get("z")], total: 3 });
  });

  it("keeps index buckets in step with replaced values", () => {
    const items = collection();
    items.create({ id: "a", colour: "red" });
    items.replace("a", { id: "a", colour: "blue" });
    expect(items.count({ colour: "red" })).toBe(0);
    expect(items.count({ colour: "blue" })).toBe(1);
  });

  it("refuses a second record of an id, and a replace of none", () => {
    const items = collection();
    items.create({ id: "a", colour: "red" });
    expect(() => items.create({ id: "a", colour: "blue" })).toThrow(StoreError);
    expect(() => items.replace("b", { id: "b", colour: "blue" })).toThrow(StoreError);
  });
});

import { describe, expect, it } from "vitest";
import { Clock } from "../core/clock.js";
import { seedWorkspace } from "../seed/index.js";
import type { ChangeTracker, WorkspaceChange } from "./changes.js";
import { Workspace } from "./workspace.js";
import {
  applyEntry,
  entriesOf,
  exportRecords,
  exportSecrets,
  importSecrets,
  optionsOf,
  readEntry,
} from "./workspace-state.js";

const NOW = new Date("2026-11-01T12:00:00.000Z");
const options = { workspaceId: "w", apiKey: "k", seed: 4, empty: false, readOnly: false };

function seeded(): Workspace {
  const workspace = new Workspace(options, new Clock({ mode: "virtual", start: NOW }));
  seedWorkspace(workspace, NOW);
  workspace.tasks.schedule({ kind: "call", ref: "c-1", at: NOW.getTime() + 5_000 });
  workspace.outbox.create({ deliveryId: "d-1", order: 1 } as never);
  workspace.callPlans.set("c-1", { status: "ended", connects: true });
  workspace.trunks.set("+15550100", { trunkUsername: "u" });
  workspace.random.next();
  return workspace;
}

/** Everything a workspace holds, as data. */
function contentOf(w: Workspace) {
  return {
    options: optionsOf(w),
    records: exportRecords(w),
    secrets: exportSecrets(w),
    tasks: w.tasks.all(),
    outbox: w.outbox.all(),
    random: w.random.state,
    clock: w.clock.nowMs(),
  };
}

describe("workspace state", () => {
  it("copies a workspace whole, entry by entry, through JSON (what Redis holds)", () => {
    const from = seeded();
    const to = new Workspace({ ...options, empty: true }, new Clock({ mode: "virtual" }));
    for (const change of entriesOf(from)) {
      const value = readEntry(from, change);
      applyEntry(to, change, value === undefined ? undefined : JSON.parse(JSON.stringify(value)));
    }
    expect(contentOf(to)).toEqual({ ...contentOf(from), options: { ...options, empty: true } });
    // Creation order is kept: a record created next comes last in both.
    expect(to.collections.agents.entryOf(to.collections.agents.all().at(-1)!.agentId)?.seq).toBe(
      from.collections.agents.size - 1,
    );
  });

  it("removes an entry applied without a value", () => {
    const w = seeded();
    const agent = w.collections.agents.all()[0];
    applyEntry(w, { kind: "record", collection: "agents", id: agent.agentId }, undefined);
    applyEntry(w, { kind: "task", id: "call:c-1" }, undefined);
    applyEntry(w, { kind: "trunk", number: "+15550100" }, undefined);
    expect(w.collections.agents.get(agent.agentId)).toBeUndefined();
    expect(w.tasks.get("call:c-1")).toBeUndefined();
    expect(w.trunks.has("+15550100")).toBe(false);
  });

  it("names every entry a workspace holds by the change that writes it", () => {
    const seen: WorkspaceChange[] = [];
    const tracker: ChangeTracker<WorkspaceChange> = { changed: (change) => void seen.push(change) };
    const w = new Workspace(options, new Clock({ mode: "virtual", start: NOW }), tracker);
    seedWorkspace(w, NOW);
    w.tasks.schedule({ kind: "call", ref: "c-1", at: 0 });
    w.outbox.create({ deliveryId: "d-1", order: 1 } as never);
    w.callPlans.set("c-1", { status: "ended", connects: true });
    w.clock.set(NOW.getTime() + 1);
    w.random.uuid();
    const key = (c: WorkspaceChange) => JSON.stringify(c);
    const told = new Set(seen.map(key));
    // Whatever is there was told of as it was written.
    expect(entriesOf(w).filter((c) => !told.has(key(c)))).toEqual([]);
    expect(entriesOf(w).length).toBeGreaterThan(50);
  });

  it("adds secrets and plans from their pairs, as the state file holds them", () => {
    const w = new Workspace({ ...options, empty: true }, new Clock({ mode: "virtual" }));
    importSecrets(w, exportSecrets(seeded()));
    expect(exportSecrets(w)).toEqual(exportSecrets(seeded()));
    expect(w.callPlans.get("c-1")).toEqual({ status: "ended", connects: true });
  });
});

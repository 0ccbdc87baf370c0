import { describe, expect, it } from "vitest";
import { Clock } from "../core/clock.js";
import type { Store } from "../store/store.js";
import type { Task } from "../store/tasks.js";
import { Workspace } from "../store/workspace.js";
import { Scheduler } from "./scheduler.js";
import type { Simulation } from "./simulation.js";

const START = Date.parse("2026-11-01T12:00:00.000Z");

function setup(mode: "virtual" | "real" = "virtual") {
  const workspace = new Workspace(
    { workspaceId: "w", apiKey: "k", seed: 1, empty: true, readOnly: false },
    new Clock({ mode, start: new Date(START), speed: mode === "real" ? 1000 : 1 }),
  );
  const ran: string[] = [];
  let transactions = 0;
  let inTransaction = false;
  const store: Pick<Store, "transactBackground"> = {
    async transactBackground(_workspace, work) {
      transactions++;
      inTransaction = true;
      try {
        return (await work()) as never;
      } finally {
        inTransaction = false;
      }
    },
  };
  const step = (w: Workspace, task: Task) => {
    expect(inTransaction).toBe(true);
    ran.push(`${task.id}@${w.clock.nowMs() - START}`);
    // A call goes on: its next step half a second later.
    if (task.ref === "chain") w.tasks.schedule({ kind: "call", ref: "chain-2", at: w.clock.nowMs() + 500 });
  };
  const simulation = {
    calls: { step },
    batches: { step },
    chats: { step },
    webhooks: { step: (w: Workspace, task: Task) => void step(w, task) },
  } as unknown as Simulation;
  return { workspace, ran, scheduler: new Scheduler(simulation, store), transactions: () => transactions };
}

describe("Scheduler", () => {
  it("advances a workspace running each task due, in time order, at its own time, each as a transaction", async () => {
    const { workspace, ran, scheduler, transactions } = setup();
    workspace.tasks.schedule({ kind: "call", ref: "chain", at: START + 2_000 });
    workspace.tasks.schedule({ kind: "testRun", ref: "a", at: START + 1_000 });
    workspace.tasks.schedule({ kind: "delivery", ref: "late", at: START + 10_000 });
    await scheduler.advance(workspace, 5_000);
    expect(ran).toEqual(["testRun:a@1000", "call:chain@2000", "call:chain-2@2500"]);
    expect(workspace.clock.nowMs()).toBe(START + 5_000);
    expect(workspace.tasks.all().map((t) => t.id)).toEqual(["delivery:late"]);
    // Reading the time, three tasks, finding none more due, moving the clock on.
    expect(transactions()).toBe(6);
  });

  it("fires a task only as it was scheduled: one scheduled again since has its own wake-up", async () => {
    const { workspace, ran, scheduler } = setup();
    const first = workspace.tasks.schedule({ kind: "call", ref: "x", at: START });
    const again = workspace.tasks.schedule({ kind: "call", ref: "x", at: START + 1 });
    expect(await scheduler.fire(workspace, "call:x", first.seq)).toBe(false);
    expect(ran).toEqual([]);
    expect(await scheduler.fire(workspace, "call:x", again.seq)).toBe(true);
    expect(ran).toEqual(["call:x@0"]);
    expect(await scheduler.fire(workspace, "call:x", again.seq)).toBe(false);
  });

  it("on a real clock, wakes the clock for each task scheduled", async () => {
    const { workspace, ran, scheduler } = setup("real");
    scheduler.wakeClockOf(workspace);
    workspace.tasks.schedule({ kind: "chatEnd", ref: "soon", at: workspace.clock.nowMs() + 1_000 });
    const deadline = Date.now() + 2_000;
    while (ran.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(ran).toHaveLength(1);
    expect(ran[0]).toMatch(/^chatEnd:soon@/);
    workspace.clock.stop();
  });
});

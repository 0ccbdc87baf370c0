/**
 * What the history checker makes of a request a killed replica never answered: a write's outcome is
 * unknown, so its workspace is no longer compared with the model; a read changes nothing, unless the
 * workspace has a one-shot fault rule waiting, which the read may have used up on the killed replica
 * (then the model, which never saw the read, would still answer the fault next).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { Client } from "../soak/history/client.js";
import type { DriverContext } from "../soak/history/driver-context.js";
import { newHistory } from "../soak/history/history.js";
import { Bindings } from "../soak/history/model.js";
import type { Replica } from "../soak/history/topology.js";
import type { OwnedWorkspace } from "../soak/history/workspace.js";

/** A port nothing listens on: taken, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function afterKilledRead(faultPending: boolean, method = "GET"): Promise<OwnedWorkspace> {
  const killed = { name: "r1", url: `http://127.0.0.1:${await closedPort()}`, alive: false, killedAt: 1 } as Replica;
  const ctx = {
    topology: { live: () => [killed] },
    history: newHistory(),
    figures: { requests: 0, indeterminate: 0, latenciesMs: [] },
  } as unknown as DriverContext;
  const client: Client = new Client(0, ctx, () => [client]);
  const w = {
    owner: 0,
    real: { id: "ws-real", key: "k" },
    twin: { id: "ws-twin", key: "k" },
    unresolved: false,
    faultPending,
    ids: new Bindings(),
  } as OwnedWorkspace;
  await client.owner(w, "list agents", method, () => "/v1/agents", undefined, 0, true);
  expect(ctx.history.anomalies).toEqual([]);
  expect(ctx.figures.indeterminate).toBe(1);
  return w;
}

describe("a request a killed replica never answered", () => {
  it("leaves the workspace compared when it was a read", async () => {
    expect((await afterKilledRead(false)).unresolved).toBe(false);
  });

  it("stops comparing the workspace when the read may have used up its fault rule", async () => {
    expect((await afterKilledRead(true)).unresolved).toBe(true);
  });

  it("stops comparing the workspace after a write", async () => {
    expect((await afterKilledRead(false, "DELETE")).unresolved).toBe(true);
  });
});

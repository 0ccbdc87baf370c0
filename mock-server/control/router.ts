/**
 * The /__mock control plane (spec/mock-control.yaml): health, reset, workspaces, fixtures, clocks,
 * fault rules, the request journal and the webhook outbox. No API key: it exists only on the mock.
 * Routes of the core like the operations, so every door serves them alike; one file per group.
 */
import { clockRoutes } from "./clock.js";
import { faultRoutes } from "./faults.js";
import { journalRoutes } from "./journals.js";
import { recordRoutes } from "./records.js";
import type { ControlRoute, ControlServices } from "./types.js";
import { workspaceRoutes } from "./workspaces.js";

export type { ControlRequest, ControlRoute, ControlServices } from "./types.js";

/**
 * In match order: a fixed segment (`/workspaces/{id}/reset`) before the `{collection}` it would also fit.
 * Each route's synchronous part is one control-plane transaction of the store, but the clock's: an
 * advance runs each task that falls due as a transaction of its own (clock.ts).
 */
export function controlRoutes(services: ControlServices): ControlRoute[] {
  const store = services.workspaces;
  const oneTransaction = (routes: ControlRoute[]) =>
    routes.map(
      (route): ControlRoute => ({ ...route, handle: (request) => store.control(() => route.handle(request)) }),
    );
  return [
    ...oneTransaction(workspaceRoutes(services)),
    ...oneTransaction(recordRoutes(services)),
    ...clockRoutes(services),
    ...oneTransaction(faultRoutes(services)),
    ...oneTransaction(journalRoutes(services)),
  ];
}

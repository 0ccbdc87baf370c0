/** Joining the control spec's operations with their handlers (router.ts), without a server. */
import { describe, expect, it } from "vitest";
import { controlOperations } from "../core/control-operations.js";
import { joinHandlers } from "./router.js";
import type { ControlHandler } from "./types.js";

const handler: ControlHandler<never> = { handle: () => ({ status: 200 as never }) };
const every = () => Object.fromEntries(controlOperations.map((op) => [op.operationId, handler]));

describe("joinHandlers", () => {
  it("routes every operation of the spec, in match order, with its method and path", () => {
    const routes = joinHandlers(every());
    expect(routes.map((r) => r.operation)).toEqual(controlOperations);
    expect(routes.map((r) => [r.operationId, r.method, r.path])).toEqual(
      controlOperations.map((op) => [op.operationId, op.method, op.path]),
    );
  });

  it("refuses to start with an operation that has no handler", () => {
    const { getClock: _, ...handlers } = every();
    expect(() => joinHandlers(handlers)).toThrow(
      /no control handler for operations of spec\/mock-control.yaml: getClock/,
    );
  });

  it("refuses to start with a handler for an operation the spec does not have", () => {
    expect(() => joinHandlers({ ...every(), getWeather: handler })).toThrow(
      /control handlers for operations spec\/mock-control.yaml does not have: getWeather/,
    );
  });
});

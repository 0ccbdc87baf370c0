/**
 * Control plane, fault rules (core/faults.ts has what they do): add, list, remove one, remove all.
 * The spec's FaultRuleInput checks a rule's fields; FaultRules.add what it cannot: the operation and
 * the workspace exist, the status is one the operation documents, the fields fit the kind.
 */
import { ApiError } from "../core/errors.js";
import type { ControlHandlers, ControlServices } from "./types.js";

export function faultHandlers({
  faults,
}: ControlServices): ControlHandlers<"createFault" | "listFaults" | "deleteFault" | "clearFaults"> {
  /** A workspace's key sees the rules aimed at its workspace, not the mock-wide ones. */
  const visible = (scope: string | undefined) =>
    scope === undefined ? faults.list() : faults.list().filter((rule) => rule.workspaceId === scope);
  return {
    createFault: { handle: ({ body }) => ({ status: 201, body: faults.add(body) }) },
    listFaults: { handle: ({ scope }) => ({ status: 200, body: visible(scope) }) },
    deleteFault: {
      handle: ({ params, scope }) => {
        const mine = visible(scope).some((rule) => rule.faultId === params.faultId);
        if (!mine || !faults.remove(params.faultId)) throw new ApiError(404, `Fault rule not found: ${params.faultId}`);
        return { status: 204 };
      },
    },
    clearFaults: {
      handle: ({ scope }) => {
        if (scope === undefined) faults.clear();
        else for (const rule of visible(scope)) faults.remove(rule.faultId);
        return { status: 204 };
      },
    },
  };
}

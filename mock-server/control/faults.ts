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
  return {
    createFault: { handle: ({ body }) => ({ status: 201, body: faults.add(body) }) },
    listFaults: { handle: () => ({ status: 200, body: faults.list() }) },
    deleteFault: {
      handle: ({ params }) => {
        if (!faults.remove(params.faultId)) throw new ApiError(404, `Fault rule not found: ${params.faultId}`);
        return { status: 204 };
      },
    },
    clearFaults: {
      handle: () => {
        faults.clear();
        return { status: 204 };
      },
    },
  };
}

/** Control plane, fault rules (core/faults.ts has what they do): add, list, remove one, remove all. */
import { ApiError } from "../core/errors.js";
import { objectBody } from "./body.js";
import type { ControlRoute, ControlServices } from "./types.js";

export function faultRoutes({ faults }: ControlServices): ControlRoute[] {
  return [
    {
      operationId: "createFault",
      method: "POST",
      path: "/faults",
      handle: ({ body }) => ({ status: 201, body: faults.add(objectBody(body)) }),
    },
    { operationId: "listFaults", method: "GET", path: "/faults", handle: () => ({ status: 200, body: faults.list() }) },
    {
      operationId: "deleteFault",
      method: "DELETE",
      path: "/faults/{faultId}",
      handle: ({ params }) => {
        if (!faults.remove(params.faultId)) throw new ApiError(404, `Fault rule not found: ${params.faultId}`);
        return { status: 204 };
      },
    },
    {
      operationId: "clearFaults",
      method: "DELETE",
      path: "/faults",
      handle: () => {
        faults.clear();
        return { status: 204 };
      },
    },
  ];
}

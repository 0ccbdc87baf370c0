// TEMPORARY (not to be committed): handlers being written in parallel.
import { ApiError } from "../core/errors.js";
import type { ControlHandlers } from "./types.js";
export function pendingHandlers(): ControlHandlers<"exportHar"> {
  return {
    exportHar: {
      handle: () => {
        throw new ApiError(501, "har: being written");
      },
    },
  } as never;
}

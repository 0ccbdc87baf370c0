// TEMPORARY: handlers being written in parallel. None is left: this file and its line in router.ts can go.
import type { ControlHandlers } from "./types.js";
export function pendingHandlers(): ControlHandlers<never> {
  return {};
}

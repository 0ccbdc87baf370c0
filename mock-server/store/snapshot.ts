/**
 * Snapshots of a workspace: every record of every collection (newest last, so an import replays the
 * creation order): the records part of a workspace's state (workspace-state.ts). Used by the control
 * plane's export/import and by --state-file persistence.
 */
import { ApiError, invalid } from "../core/errors.js";
import { collectionNames, type CollectionName } from "./records.js";
import { recordErrors, type RecordCheck } from "./record-checks.js";
import type { Workspace } from "./workspace.js";
import { exportRecords, type Records } from "./workspace-state.js";

export type Snapshot = Records;

export const exportSnapshot: (workspace: Workspace) => Snapshot = exportRecords;

/**
 * Replaces every collection; all or nothing: a bad snapshot leaves the workspace as it was. Records are
 * checked by `check`: the mock's spec (recordCheck), the bundled one by default.
 */
export function importSnapshot(
  workspace: Workspace,
  snapshot: Record<string, unknown>,
  check: RecordCheck = recordErrors,
): void {
  for (const [name, records] of Object.entries(snapshot)) {
    if (!(collectionNames as string[]).includes(name)) throw invalid({ [name]: "is not a collection" });
    if (!Array.isArray(records) || records.some((r) => !r || typeof r !== "object" || Array.isArray(r))) {
      throw invalid({ [name]: "must be an array of records" });
    }
    for (const [i, record] of records.entries()) {
      const errors = check(name as CollectionName, record);
      if (errors)
        throw invalid(
          Object.fromEntries(Object.entries(errors).map(([field, message]) => [`${name}[${i}].${field}`, message])),
          "Snapshot refused",
        );
    }
  }
  const before = exportSnapshot(workspace);
  try {
    for (const name of collectionNames) {
      if (!(name in snapshot)) continue;
      const collection = workspace.collections[name] as unknown as { clear(): void; create(r: unknown): void };
      collection.clear();
      for (const record of snapshot[name] as unknown[]) collection.create(record);
    }
    // Imported calls are new records: a script written for a call of the same id no longer applies.
    if ("calls" in snapshot) workspace.callPlans.clear();
  } catch (error) {
    for (const name of collectionNames) {
      const collection = workspace.collections[name] as unknown as { clear(): void; create(r: unknown): void };
      collection.clear();
      for (const record of before[name]) collection.create(record);
    }
    throw new ApiError(400, `Snapshot refused: ${(error as Error).message}`);
  }
}

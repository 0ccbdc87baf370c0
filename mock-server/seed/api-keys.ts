/**
 * API key records: the reference shows only keyId; the kit's record (records.ts) adds a name, a scope
 * and a creation date. The key value is a secret and is never part of the record.
 */
import type { ApiKeyRecord } from "../store/records.js";
import { iso, parseTime, type BuildContext } from "./context.js";

const NAMES = ["CI pipeline", "Reporting dashboard", "Staging backend", "Data export", "Support tooling"];

export function buildApiKey(ctx: BuildContext, partial: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  const { faker, workspace } = ctx;
  const name = partial.name ?? faker.helpers.arrayElement(NAMES);
  return {
    keyId: partial.keyId ?? faker.string.uuid(),
    workspaceId: workspace.workspaceId,
    name,
    scope: partial.scope ?? (name === "Reporting dashboard" || name === "Data export" ? "read_only" : "full"),
    createdAt: iso(parseTime(partial.createdAt) ?? ctx.now.getTime()),
  };
}

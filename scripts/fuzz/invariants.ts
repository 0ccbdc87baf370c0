/**
 * State the fuzzer watches around each request, in the process that runs the mock: the workspace's
 * store (records, stored credentials and trunk secrets, the newest webhook delivery) and the shared
 * prototypes, which a naive merge of `__proto__` / `constructor.prototype` keys would pollute.
 */
import { exportSnapshot } from "../../mock-server/store/snapshot.js";
import type { Workspace } from "../../mock-server/store/workspace.js";
import type { WebhookDispatcher } from "../../mock-server/webhooks/dispatcher.js";

/** Everything a request could change in a workspace, as one string. */
export function storeFingerprint(workspace: Workspace, webhooks: WebhookDispatcher): string {
  return JSON.stringify({
    records: exportSnapshot(workspace),
    credentials: [...workspace.credentials],
    trunks: [...workspace.trunks],
    newestDelivery: webhooks.list([workspace])[0]?.deliveryId ?? null,
  });
}

/**
 * Stored values that JSON cannot carry (Infinity, NaN: JSON.parse makes Infinity of 1e400): they would
 * be served as null, against the spec. Checked after each accepted write.
 */
export function unserialisable(workspace: Workspace): string[] {
  const found: string[] = [];
  for (const [name, records] of Object.entries(exportSnapshot(workspace))) {
    JSON.stringify(records, (key, value) => {
      if (typeof value === "number" && !Number.isFinite(value)) found.push(`${name}: ${key} = ${value}`);
      return value;
    });
  }
  return found;
}

/** Which parts of two fingerprints differ, and how many records each part holds. */
export function describeChange(before: string, after: string): string {
  const a = JSON.parse(before) as Record<string, unknown> & { records: Record<string, unknown[]> };
  const b = JSON.parse(after) as typeof a;
  const changed: string[] = [];
  for (const name of Object.keys(b.records)) {
    if (JSON.stringify(a.records[name]) !== JSON.stringify(b.records[name]))
      changed.push(`${name} (${a.records[name]?.length} -> ${b.records[name].length} records)`);
  }
  for (const part of ["credentials", "trunks", "newestDelivery"])
    if (JSON.stringify(a[part]) !== JSON.stringify(b[part])) changed.push(part);
  return changed.join(", ");
}

const WATCHED: [string, object][] = [
  ["Object.prototype", Object.prototype],
  ["Array.prototype", Array.prototype],
  ["Function.prototype", Function.prototype],
  ["String.prototype", String.prototype],
];

export type PrototypeState = Map<string, Map<PropertyKey, unknown>>;

export function prototypeState(): PrototypeState {
  return new Map(
    WATCHED.map(([name, proto]) => [
      name,
      new Map(Reflect.ownKeys(proto).map((k) => [k, Object.getOwnPropertyDescriptor(proto, k)?.value])),
    ]),
  );
}

/** Properties added to or replaced on a watched prototype since `baseline`; restores them, so the run can go on. */
export function prototypeChanges(baseline: PrototypeState): string[] {
  const changes: string[] = [];
  for (const [name, proto] of WATCHED) {
    const known = baseline.get(name)!;
    for (const key of Reflect.ownKeys(proto)) {
      const value = Object.getOwnPropertyDescriptor(proto, key)?.value;
      if (!known.has(key)) {
        changes.push(`${name}.${String(key)} was added (${JSON.stringify(value)})`);
        delete (proto as Record<PropertyKey, unknown>)[key];
      } else if (known.get(key) !== value) {
        changes.push(`${name}.${String(key)} was replaced`);
        Object.defineProperty(proto, key, { value: known.get(key) });
      }
    }
  }
  return changes;
}

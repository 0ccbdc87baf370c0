/**
 * The history of one run: every request and its answer (client, replica, invoke and complete times,
 * status, a digest of the body, the workspace), the kills, and the anomalies found. Plain data, so
 * the checks (checks.ts) and the failure report (report.ts) also run on hand-made histories.
 */

export interface Entry {
  id: number;
  client: number;
  /** What the operation is, as the model's projections name it: "list calls", "dump webhooks", ... */
  label: string;
  method: string;
  path: string;
  replica: string;
  invoke: number;
  /** When the answer arrived, or when the request failed (indeterminate). */
  complete: number;
  /** null: no answer (the replica was killed while the request was in flight): indeterminate. */
  status: number | null;
  /** The first characters of the answer's body. */
  digest: string;
  /** The real workspace id the request is about, if any. */
  workspace?: string;
  /** owner: the client owns the workspace; observer: it reads another's; control: mock-wide; probe: checker's own. */
  role: "owner" | "observer" | "control" | "probe";
  /** Register writes this request made once acknowledged (integration names, "<absent>" after a reset or delete). */
  writes?: { register: string; value: string }[];
  /** Register read: the value this read saw. */
  read?: { register: string; value: string };
  note?: string;
}

export interface KillEvent {
  replica: string;
  at: number;
  restartedAs?: string;
  restartedAt?: number;
}

export type AnomalyKind =
  | "server-error"
  | "log-line"
  | "differential"
  | "stale-read"
  | "lost-write"
  | "deleted-key"
  | "exactly-once"
  | "delivery"
  | "signature"
  | "network";

export interface Anomaly {
  kind: AnomalyKind;
  message: string;
  /** The entry that shows it, if one does. */
  entry?: number;
  workspace?: string;
  /** When it was seen (wall clock, ms). */
  at: number;
}

export interface History {
  entries: Entry[];
  kills: KillEvent[];
  anomalies: Anomaly[];
}

export function newHistory(): History {
  return { entries: [], kills: [], anomalies: [] };
}

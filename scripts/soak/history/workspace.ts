/**
 * A workspace as the history checker tracks it: the real one and its twin in the model, what its
 * owner made in it and had acknowledged, and which twin id is which real id. Each workspace has one
 * owner, its only writer, so this record is what the end checks hold the store to. Also the names and
 * ids the checker chooses itself (agents, the "absent" register value, deterministic UUIDs).
 */
import { createHash } from "node:crypto";
import { Bindings } from "./model.js";

export const AGENT_A = "agent-a";
export const AGENT_B = "agent-b";
/** The value of a register (an integration's name) once its workspace is reset or deleted. */
export const ABSENT = "<absent>";

/** A record's id on the real side and on the twin's. */
interface Pair {
  real: string;
  twin: string;
}

export interface OwnedWorkspace {
  owner: number;
  real: { id: string; key: string };
  twin: { id: string; key: string };
  seed: number;
  empty: boolean;
  integrations: Pair[];
  qaRules: string[];
  phones: string[];
  calls: string[];
  batchRuns: Pair[];
  testCases: string[];
  /** An owner write whose outcome is unknown (killed replica): no longer compared with the model. */
  unresolved: boolean;
  /** A one-shot fault rule is set and its request not yet answered: a read may change state too (it uses the rule up). */
  faultPending: boolean;
  /** Ids of records created by acknowledged writes, by collection (unresolved workspaces are checked on these). */
  acked: Map<string, Set<string>>;
  deleted: boolean;
  /** Webhook secrets by the receiver path of their webhook (the real one). */
  hooks: Map<string, string>;
  /**
   * Which twin id is which real id, in this workspace since its last reset. Per workspace: workspaces of
   * one seed draw the same ids, and a reset draws them again, while background work on the real side
   * may shift its sequence; a binding made elsewhere or before would not hold.
   */
  ids: Bindings;
}

/** A deterministic UUID for the ids the checker chooses itself (calls, QA rules, webhooks, test cases). */
export function uuidOf(...parts: (string | number)[]): string {
  const h = createHash("sha256").update(parts.join("/")).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Records that an acknowledged write created `id` in `collection`. */
export function acknowledge(w: OwnedWorkspace, collection: string, id: string): void {
  if (!w.acked.has(collection)) w.acked.set(collection, new Set());
  w.acked.get(collection)!.add(id);
}

/** Forgets every record of a workspace (after a reset, or one that may have applied). */
export function forgetRecords(w: OwnedWorkspace): void {
  w.integrations = [];
  w.qaRules = [];
  w.phones = [];
  w.calls = [];
  w.batchRuns = [];
  w.testCases = [];
  w.acked = new Map();
  w.hooks = new Map();
  w.ids = new Bindings();
}

/**
 * The due index: which workspaces may have a task due, and from when (wall-clock ms), so the processes'
 * pollers find work whose process died. It lives in a slot of its own (`apm:{due}`), so no workspace's
 * commit can write it: "hint early, fix late".
 *
 * The promise: for every workspace whose committed state has a real-time task due at T, the index holds
 * an entry at T or earlier. An entry earlier than needed costs one empty poll, nothing more.
 *
 * - Hint early. A commit that makes a workspace's earliest task earlier (or gives it its first) first
 *   records a hint: the entry becomes the earlier of what it was and the new time, and its guard the
 *   version that commit will give the workspace (its copy's + 1; guards only grow). The hint is sent
 *   and answered before the commit, so once the commit is in, so is its hint. A commit that fails (a
 *   conflict, a process killed in between) leaves an early entry: an empty poll.
 * - Fix late. After running due work, a poller sets the entry to what the state it read holds (or
 *   removes it), read at version V, only if V >= the guard: a state at V includes every hinted commit
 *   up to V, and a commit after V that moved the time earlier hinted a guard > V first, so the correction
 *   cannot undo its hint. A commit that moves the time later or removes tasks needs no hint (the entry
 *   is still early enough); the writer sends the same correction after its commit, without waiting.
 * - Leases. A hinted commit must land within HINT_COMMIT_MS of its hint, by Redis's clock (the commit
 *   script refuses it after its deadline: the writer hints again). So a hint older than HINT_LEASE_MS
 *   (well beyond it, for clocks of two Cluster nodes that differ by less than the gap) no longer holds
 *   back a correction read at the version its commit expected (or later): that commit either landed
 *   (then the version read is past it) or never will. Without this a hint left by a process killed
 *   before its commit would hold an entry until the workspace's next write. An applied correction's
 *   guard holds older ones back for good.
 * - A deleted workspace's entry is removed after its delete is committed; a poller that finds an entry
 *   for a workspace the registry does not name corrects it as read at version 0 (removed unless a hint
 *   for a workspace being born is pending).
 *
 * Reads never touch the index. Virtual clocks have no entry: their tasks run when advanced.
 */

import type { Workspace } from "../workspace.js";

/** A hinted commit must be in Redis this long after its hint (Redis ms). */
export const HINT_COMMIT_MS = 10_000;

/** After this a pending hint no longer holds a correction back. */
export const HINT_LEASE_MS = 30_000;

/** Whether a commit that moves a workspace's earliest due time from `before` to `after` must hint first. */
export const needsHint = (before: number | undefined, after: number | undefined): after is number =>
  after !== undefined && (before === undefined || after < before);

/** Whether it should correct the entry after its commit: the time moved later, or nothing is due any more. */
export const needsCorrection = (before: number | undefined, after: number | undefined): boolean =>
  before !== undefined && (after === undefined || after > before);

/** Wall-clock ms of a workspace's earliest task (real time only: a virtual clock waits for advance). */
export function dueOf(workspace: Workspace): number | undefined {
  const next = workspace.tasks.peek();
  if (!next || workspace.clock.mode !== "real") return undefined;
  return Date.now() + Math.max(0, next.at - workspace.clock.nowMs()) / workspace.clock.speed;
}

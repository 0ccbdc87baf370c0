/**
 * Clocks: each workspace has its own. For the picked one, its time, what it has scheduled (a call's next
 * status, a test run finishing, a silent chat ending, a webhook retry), when that falls due relative to
 * the clock, and the subject's status now; and an advance that runs what falls due on the way.
 * Refreshed on `clock` events (someone else advanced it) and, at most a few times a second, on the
 * workspace's requests (a new call schedules its first step).
 */
import { html } from "htm/preact";
import { useState } from "preact/hooks";
import type { ClockState, JournalEntry } from "../api.js";
import type { DashboardContext } from "../context.js";
import { fieldErrorsOf, firstWorkspaceOf, messageOf, useEvents, useLoad } from "../context.js";
import { clockDateTime, relativeTo } from "../format.js";
import { ErrorNote, WorkspaceSelect } from "./parts.js";

const KIND_TEXT: Record<string, string> = {
  call: "Call moves on",
  testRun: "Test run finishes",
  chatEnd: "Silent chat ends",
  delivery: "Webhook attempt",
};

/** Quick advances, in seconds. */
const STEPS: [number, string][] = [
  [10, "+10 s"],
  [60, "+1 min"],
  [600, "+10 min"],
  [3600, "+1 h"],
];

export function ClocksView({ ctx }: { ctx: DashboardContext }) {
  const [workspaceId, setWorkspaceId] = useState(() => firstWorkspaceOf(ctx));
  const clock = useLoad(() => ctx.api.clock(workspaceId || undefined), [workspaceId]);
  // The root clock is the mock's: with a key, a clock that names no workspace is the key's own.
  const root = useLoad(() => (ctx.scope === "mock" ? ctx.api.clock() : Promise.resolve(undefined)), []);
  const shownId = workspaceId || clock.data?.workspaceId;
  useEvents(ctx, ["clock", "request", "workspace", "delivery", "dropped"], (type, data) => {
    if (type === "clock") {
      if (data.workspaceId === shownId) clock.reload();
      else if (data.workspaceId === null || data.workspaceId === undefined) root.reload(), clock.reload();
    } else if (type === "request") {
      if ((data as JournalEntry).workspaceId === shownId) clock.reloadSoon();
    } else clock.reloadSoon();
  });
  return html`<section aria-labelledby="clocks-title">
    <h2 id="clocks-title">Clocks</h2>
    <div class="toolbar">
      <${WorkspaceSelect}
        id="clock-workspace"
        label="Workspace"
        value=${workspaceId}
        workspaces=${ctx.workspaces}
        onChange=${setWorkspaceId}
      />
      <button type="button" onClick=${() => (clock.reload(), root.reload())}>Refresh</button>
    </div>
    <${ErrorNote} message=${clock.error} />
    ${clock.data && html`<${ClockPanel} ctx=${ctx} state=${clock.data} onAdvanced=${(s: ClockState) => (clock.set(s), clock.reload())} />`}
    ${
      root.data &&
      html`<p class="muted">
      Root clock (where new workspaces start): ${clockDateTime(root.data.now)}, ${root.data.mode}${root.data.mode === "real" && root.data.speed !== 1 ? `, ×${root.data.speed}` : ""}.
    </p>`
    }
  </section>`;
}

function ClockPanel({
  ctx,
  state,
  onAdvanced,
}: {
  ctx: DashboardContext;
  state: ClockState;
  onAdvanced: (state: ClockState) => void;
}) {
  const [seconds, setSeconds] = useState("60");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ message: string; fields: Record<string, string> } | undefined>(undefined);
  const [said, setSaid] = useState("");
  const workspaceId = state.workspaceId ?? undefined;
  const advance = (by: number) => {
    setBusy(true);
    setError(undefined);
    ctx.api.advance(by, workspaceId).then(
      (next) => (setBusy(false), setSaid(`Advanced ${by} s: now ${clockDateTime(next.now)}.`), onAdvanced(next)),
      (e) => (setBusy(false), setError({ message: messageOf(e), fields: fieldErrorsOf(e) })),
    );
  };
  const pending = state.pending ?? [];
  return html`<div class="pane">
    <dl class="facts">
      <dt>Now</dt><dd data-testid="clock-now">${clockDateTime(state.now)}</dd>
      <dt>Mode</dt><dd>${state.mode}${state.mode === "real" ? ` (speed ×${state.speed})` : " (moves only when advanced)"}</dd>
    </dl>
    <form class="toolbar" noValidate onSubmit=${(e: Event) => (e.preventDefault(), advance(Number(seconds)))} aria-label="Advance the clock">
      <div class="field">
        <label for="advance-seconds">Seconds</label>
        <input id="advance-seconds" type="number" min="0" step="any" value=${seconds} onInput=${(e: Event) => setSeconds((e.target as HTMLInputElement).value)} />
      </div>
      <button type="submit" class="primary" disabled=${busy}>Advance</button>
      ${STEPS.map(
        ([by, label]) =>
          html`<button key=${by} type="button" disabled=${busy} onClick=${() => advance(by)} aria-label=${`Advance ${label.slice(1)}`}>${label}</button>`,
      )}
      <span role="status" class="muted">${said}</span>
    </form>
    <${ErrorNote} message=${error?.message} fields=${error?.fields} />
    <h3 id="pending-title">Scheduled (${pending.length})</h3>
    ${
      pending.length === 0
        ? html`<p class="muted">Nothing scheduled: advancing this clock changes nothing until something is started.</p>`
        : html`<div class="table-wrap" tabindex="0" role="region" aria-labelledby="pending-title">
          <table aria-labelledby="pending-title">
            <thead>
              <tr>
                <th scope="col">What</th>
                <th scope="col">Subject</th>
                <th scope="col">Status now</th>
                <th scope="col">Due</th>
              </tr>
            </thead>
            <tbody>
              ${pending.map(
                (task) => html`<tr key=${`${task.kind}:${task.ref}:${task.dueAt}`} data-ref=${task.ref}>
                  <td>${KIND_TEXT[task.kind] ?? task.kind}</td>
                  <td class="mono path">${task.ref}</td>
                  <td>${task.subjectStatus === null ? html`<span class="muted">none</span>` : html`<span class="badge" data-testid="subject-status">${task.subjectStatus}</span>`}</td>
                  <td>${relativeTo(task.dueAt, state.now)} <span class="muted">(${clockDateTime(task.dueAt)})</span></td>
                </tr>`,
              )}
            </tbody>
          </table>
        </div>`
    }
  </div>`;
}

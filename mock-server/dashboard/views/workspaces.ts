/**
 * Workspaces: every workspace with its record counts per collection and its API key (masked until
 * asked, copyable without showing it); create one (seeded, empty, read-only, a scenario), reset one to
 * its seed, delete one (the default workspace cannot be: the mock's 409 message says so). Signed in
 * with a workspace's key, the list is that workspace and creating one is off, saying why: it needs the token.
 */
import { html } from "htm/preact";
import { useState } from "preact/hooks";
import type { WorkspaceInfo } from "../api.js";
import type { DashboardContext } from "../context.js";
import { fieldErrorsOf, messageOf } from "../context.js";
import { maskKey } from "../format.js";
import { CopyButton, ErrorNote } from "./parts.js";

export function WorkspacesView({ ctx }: { ctx: DashboardContext }) {
  return html`<section aria-labelledby="workspaces-title">
    <h2 id="workspaces-title">Workspaces</h2>
    <${WorkspaceCreator} ctx=${ctx} />
    <div class="cards">
      ${ctx.workspaces.map((w) => html`<${WorkspaceCard} key=${w.workspaceId} ctx=${ctx} workspace=${w} />`)}
    </div>
  </section>`;
}

export function KeyField({ label, apiKey }: { label: string; apiKey: string }) {
  const [shown, setShown] = useState(false);
  return html`<span class="row">
    <span class="mono" aria-label=${shown ? label : `${label}, hidden`}>${shown ? apiKey : maskKey(apiKey)}</span>
    <button type="button" aria-pressed=${shown} onClick=${() => setShown(!shown)}>${shown ? "Hide" : "Reveal"}</button>
    <${CopyButton} text=${apiKey} label="Copy key" />
  </span>`;
}

function WorkspaceCard({ ctx, workspace: w }: { ctx: DashboardContext; workspace: WorkspaceInfo }) {
  const [error, setError] = useState<string | undefined>(undefined);
  const [said, setSaid] = useState("");
  const act = (what: string, run: () => Promise<unknown>) => () => {
    setError(undefined);
    setSaid("");
    run().then(
      () => (setSaid(what), ctx.reloadWorkspaces()),
      (e) => setError(messageOf(e)),
    );
  };
  const titleId = `workspace-${w.workspaceId}`;
  const counts = Object.entries(w.counts).filter(([, n]) => n > 0);
  return html`<article class="card" aria-labelledby=${titleId} data-workspace-id=${w.workspaceId}>
    <h3 id=${titleId}>${w.workspaceId}</h3>
    <dl class="facts">
      <dt>API key</dt><dd><${KeyField} label=${`API key of ${w.workspaceId}`} apiKey=${w.apiKey} /></dd>
    </dl>
    <h4>Records</h4>
    ${
      counts.length === 0
        ? html`<p class="muted">Empty.</p>`
        : html`<ul class="counts">
          ${counts.map(([name, n]) => html`<li key=${name} class="badge">${name} ${n}</li>`)}
        </ul>`
    }
    <div class="row">
      <button type="button" onClick=${act("Reset to its seed.", () => ctx.api.resetWorkspace(w.workspaceId))} aria-label=${`Reset ${w.workspaceId}`}>Reset</button>
      <button type="button" class="danger" onClick=${act("Deleted.", () => ctx.api.deleteWorkspace(w.workspaceId))} aria-label=${`Delete ${w.workspaceId}`}>Delete</button>
      <span role="status" class="muted">${said}</span>
    </div>
    <${ErrorNote} message=${error} />
  </article>`;
}

function WorkspaceCreator({ ctx }: { ctx: DashboardContext }) {
  const [seed, setSeed] = useState("");
  const [empty, setEmpty] = useState(false);
  const [readOnly, setReadOnly] = useState(false);
  const [scenario, setScenario] = useState("");
  const [error, setError] = useState<{ message: string; fields: Record<string, string> } | undefined>(undefined);
  const [created, setCreated] = useState<{ workspaceId: string; apiKey: string } | undefined>(undefined);
  const keyOnly = ctx.scope === "workspace";
  const submit = (e: Event) => {
    e.preventDefault();
    if (keyOnly) return;
    setError(undefined);
    ctx.api
      .createWorkspace({
        ...(seed.trim() !== "" && { seed: Number(seed) }),
        ...(empty && { empty }),
        ...(readOnly && { readOnly }),
        ...(scenario === "every-variant" && { scenario }),
      })
      .then(
        (ws) => (setCreated(ws), ctx.reloadWorkspaces()),
        (failure) => setError({ message: messageOf(failure), fields: fieldErrorsOf(failure) }),
      );
  };
  return html`<form class="panel" noValidate onSubmit=${submit} aria-labelledby="workspace-form-title">
    <fieldset disabled=${keyOnly} aria-describedby=${keyOnly ? "workspace-form-why" : undefined}>
      <legend id="workspace-form-title">New workspace</legend>
      ${
        keyOnly &&
        html`<p class="muted" id="workspace-form-why">
        Creating a workspace needs the control token: signed in with a workspace's key, this dashboard controls
        that workspace only.
      </p>`
      }
      <div class="toolbar">
        <div class="field">
          <label for="workspace-seed">Seed</label>
          <input id="workspace-seed" type="number" placeholder="random" value=${seed} onInput=${(e: Event) => setSeed((e.target as HTMLInputElement).value)} />
        </div>
        <div class="field">
          <label for="workspace-scenario">Scenario</label>
          <select id="workspace-scenario" value=${scenario} onChange=${(e: Event) => setScenario((e.target as HTMLSelectElement).value)}>
            <option value="">Usual world</option>
            <option value="every-variant">Every variant</option>
          </select>
        </div>
        <label class="check"><input type="checkbox" checked=${empty} onChange=${(e: Event) => setEmpty((e.target as HTMLInputElement).checked)} /> Empty</label>
        <label class="check"><input type="checkbox" checked=${readOnly} onChange=${(e: Event) => setReadOnly((e.target as HTMLInputElement).checked)} /> Read-only key</label>
        <button type="submit" class="primary">Create workspace</button>
      </div>
    </fieldset>
    <${ErrorNote} message=${error?.message} fields=${error?.fields} />
    ${
      created &&
      html`<div class="note" role="status">
      Workspace <strong>${created.workspaceId}</strong> created. Key: <${KeyField} label="Its API key" apiKey=${created.apiKey} />
    </div>`
    }
  </form>`;
}

/**
 * Coverage and drift: which response variants a workspace's own traffic has shown (GET /__mock/coverage,
 * with how to get the rest), and what the upstream door found the real deployment breaking in the
 * contract (GET /__mock/drift; only a mock started with --upstream has findings).
 */
import { html } from "htm/preact";
import { useState } from "preact/hooks";
import type { DashboardContext } from "../context.js";
import { firstWorkspaceOf, useEvents, useLoad } from "../context.js";
import { ErrorNote, WorkspaceSelect } from "./parts.js";
import { DriftList } from "./request-detail.js";

/** Variants drawn at most. */
const MAX_VARIANTS = 300;

export function CoverageView({ ctx }: { ctx: DashboardContext }) {
  const [workspaceId, setWorkspaceId] = useState(() => firstWorkspaceOf(ctx));
  const [unseenOnly, setUnseenOnly] = useState(true);
  const coverage = useLoad(() => ctx.api.coverage(workspaceId || undefined), [workspaceId], 2000);
  const shownId = workspaceId || coverage.data?.workspaceId;
  const drift = useLoad(() => ctx.api.drift(), [], 2000);
  useEvents(ctx, ["request", "dropped", "workspace"], (type, data) => {
    if (type !== "request" || data.workspaceId === shownId) coverage.reloadSoon();
    if (type !== "workspace") drift.reloadSoon();
  });
  const variants = (coverage.data?.variants ?? []).filter((v) => !unseenOnly || !v.seen);
  return html`<section aria-labelledby="coverage-title">
    <h2 id="coverage-title">Coverage and drift</h2>
    <div class="toolbar">
      <${WorkspaceSelect} id="coverage-workspace" label="Workspace" value=${workspaceId} workspaces=${ctx.workspaces} onChange=${setWorkspaceId} />
      <label class="check"><input type="checkbox" checked=${unseenOnly} onChange=${(e: Event) => setUnseenOnly((e.target as HTMLInputElement).checked)} /> Unseen only</label>
    </div>
    <${ErrorNote} message=${coverage.error} />
    ${
      coverage.data &&
      html`<p>
        <label for="coverage-percent"><strong>${coverage.data.percent} %</strong> of the documented response variants seen in ${coverage.data.workspaceId}</label>
        ${" "}<progress id="coverage-percent" max="100" value=${coverage.data.percent}>${coverage.data.percent} %</progress>
      </p>
      ${
        variants.length === 0
          ? html`<p class="muted">${unseenOnly ? "Every variant has been seen." : "No variants."}</p>`
          : html`<div class="table-wrap" tabindex="0" role="region" aria-label="Response variants">
            <table>
              <caption class="sr-only">Response variants</caption>
              <thead>
                <tr>
                  <th scope="col">Operation</th>
                  <th scope="col">Variant</th>
                  <th scope="col">Seen</th>
                  <th scope="col" class="hide-narrow">How to get it</th>
                </tr>
              </thead>
              <tbody>
                ${variants.slice(0, MAX_VARIANTS).map(
                  (v) => html`<tr key=${`${v.operationId}:${v.kind}:${v.value}`}>
                    <td>${v.operationId}</td>
                    <td><span class="muted">${v.kind}</span> <code>${v.value}</code></td>
                    <td>${v.seen ? html`<span class="badge ok">seen</span>` : html`<span class="badge">not yet</span>`}</td>
                    <td class="hide-narrow">${v.howTo}</td>
                  </tr>`,
                )}
              </tbody>
            </table>
          </div>
          ${variants.length > MAX_VARIANTS && html`<p class="muted">And ${variants.length - MAX_VARIANTS} more.</p>`}`
      }`
    }
    <h3>Drift</h3>
    <${ErrorNote} message=${drift.error} />
    ${
      drift.data &&
      (drift.data.length === 0
        ? html`<p class="muted">
          No drift findings. They come from a mock in front of a real deployment (<code>--upstream URL</code>), which checks the
          deployment's answers against the contract.
        </p>`
        : html`<${DriftList} findings=${drift.data} />`)
    }
  </section>`;
}

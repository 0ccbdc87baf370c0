/**
 * Requests: the journal, live. The list is what the page holds (the newest entries, request-feed.ts),
 * filtered here by operation, status, workspace and free text; the operation, workspace and an exact
 * status are also asked of the server, so older matches come in from the journal. A bounded number of
 * rows is drawn whatever the rate. A row opens its detail beside the list (under it on a narrow screen).
 */
import { html } from "htm/preact";
import { useEffect, useMemo, useState } from "preact/hooks";
import type { JournalEntry, RequestFilter } from "../api.js";
import { ControlError } from "../api.js";
import type { DashboardContext } from "../context.js";
import { anyWorkspaceOf, hashOf, messageOf, useEvents } from "../context.js";
import { clockTime, statusMatches } from "../format.js";
import { FEED_CAPACITY } from "../request-feed.js";
import { RequestDetailPane } from "./request-detail.js";
import { ErrorNote, StatusBadge, WorkspaceSelect } from "./parts.js";

/** Rows drawn at most: the rest are counted, not drawn. */
export const MAX_ROWS = 200;

export interface RequestFilters {
  operationId: string;
  status: string;
  workspaceId: string;
  text: string;
}

/** What the server can filter on: the operation, the workspace, an exact status. */
export function serverFilterOf(filters: RequestFilters): RequestFilter {
  const status = filters.status.trim();
  return {
    ...(filters.operationId && { operationId: filters.operationId }),
    ...(filters.workspaceId && { workspaceId: filters.workspaceId }),
    ...(/^\d{3}$/.test(status) && { status: Number(status) }),
  };
}

export function matches(entry: JournalEntry, filters: RequestFilters): boolean {
  if (filters.operationId && entry.operationId !== filters.operationId) return false;
  if (filters.workspaceId && entry.workspaceId !== filters.workspaceId) return false;
  if (!statusMatches(filters.status, entry.status)) return false;
  const text = filters.text.trim().toLowerCase();
  if (!text) return true;
  const haystack = [
    entry.id,
    entry.method,
    entry.path + (entry.query ? `?${entry.query}` : ""),
    entry.operationId,
    entry.status,
    entry.workspaceId,
    entry.faultId,
  ]
    .join(" ")
    .toLowerCase();
  return text.split(/\s+/).every((word) => haystack.includes(word));
}

export function RequestsView({ ctx }: { ctx: DashboardContext }) {
  const [filters, setFilters] = useState<RequestFilters>({ operationId: "", status: "", workspaceId: "", text: "" });
  const [error, setError] = useState<string | undefined>(undefined);
  const [reloads, setReloads] = useState(0);
  const server = serverFilterOf(filters);
  const serverKey = JSON.stringify(server);

  // Load from the journal once the stream is open (nothing falls between), and when a server-side filter changes.
  useEffect(() => {
    if (ctx.live !== "live") return;
    let current = true;
    const load = (limit?: number): Promise<void> =>
      ctx.api.requests(server, limit).then(
        (entries) => void (current && (ctx.feed.merge(entries), setError(undefined))),
        (e) =>
          // The journal may keep fewer than we ask for (--journal-size): then all it keeps.
          e instanceof ControlError && e.fieldErrors.limit && limit !== undefined
            ? load()
            : void (current && setError(messageOf(e))),
      );
    void load(FEED_CAPACITY);
    return () => void (current = false);
  }, [ctx.live, serverKey, reloads]);
  useEvents(ctx, ["dropped", "workspace"], (type, data) => {
    if (type === "dropped" || data?.change === "reset") setReloads((n) => n + 1);
  });

  const set = (name: keyof RequestFilters) => (e: Event) =>
    setFilters((f) => ({ ...f, [name]: (e.target as HTMLInputElement | HTMLSelectElement).value }));
  const all = ctx.feed.list();
  const shown = useMemo(() => all.filter((entry) => matches(entry, filters)), [all, ctx.feedVersion, filters]);
  const rows = shown.slice(0, MAX_ROWS);
  const selected = ctx.route.requestId;
  const open = (id: string) => (e: Event) => {
    if (ctx.deepLinks) return;
    e.preventDefault();
    ctx.navigate({ view: "requests", requestId: id });
  };

  return html`<section aria-labelledby="requests-title">
    <h2 id="requests-title">Requests</h2>
    <form class="toolbar" role="search" aria-label="Filter requests" onSubmit=${(e: Event) => e.preventDefault()}>
      <div class="field">
        <label for="filter-operation">Operation</label>
        <select id="filter-operation" value=${filters.operationId} onChange=${set("operationId")}>
          <option value="">Any operation</option>
          ${ctx.operations.map((op) => html`<option key=${op.operationId} value=${op.operationId}>${op.operationId}</option>`)}
        </select>
      </div>
      <div class="field">
        <label for="filter-status">Status</label>
        <input id="filter-status" size="6" placeholder="404, 4xx" value=${filters.status} onInput=${set("status")} />
      </div>
      <${WorkspaceSelect}
        id="filter-workspace"
        label="Workspace"
        value=${filters.workspaceId}
        workspaces=${ctx.workspaces}
        any=${anyWorkspaceOf(ctx, "Any workspace")}
        onChange=${(workspaceId: string) => setFilters((f) => ({ ...f, workspaceId }))}
      />
      <div class="field">
        <label for="filter-text">Search</label>
        <input id="filter-text" type="search" placeholder="path, id, method…" value=${filters.text} onInput=${set("text")} />
      </div>
    </form>
    <${ErrorNote} message=${error} />
    <div class=${selected ? "split" : "split single"}>
      <div>
        <p class="muted" id="requests-count">
          ${
            shown.length === 0
              ? all.length === 0
                ? "No requests yet: what the app sends shows here as it happens."
                : "No request matches the filters."
              : `Showing ${rows.length} of ${shown.length} matching (the newest ${ctx.feed.capacity} are kept).`
          }
        </p>
        ${
          rows.length > 0 &&
          html`<div class="table-wrap">
          <table aria-describedby="requests-count">
            <caption class="sr-only">Requests, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Request</th>
                <th scope="col">Status</th>
                <th scope="col" class="hide-narrow">Operation</th>
                <th scope="col" class="hide-narrow">Workspace</th>
                <th scope="col" class="num hide-narrow">ms</th>
              </tr>
            </thead>
            <tbody>
              ${rows.map(
                (
                  entry,
                ) => html`<tr key=${entry.id} class=${entry.id === selected ? "selected" : ""} data-request-id=${entry.id}>
                  <td class="mono">${clockTime(entry.at)}</td>
                  <td class="path">
                    <a
                      href=${hashOf({ view: "requests", requestId: entry.id })}
                      aria-current=${entry.id === selected ? "true" : undefined}
                      onClick=${open(entry.id)}
                      ><span class="mono">${entry.method}</span> ${entry.path}${entry.query ? `?${entry.query}` : ""}</a
                    >
                    ${entry.faultId && html` <span class="badge warn" title="A fault rule applied">fault ${entry.faultId}</span>`}
                  </td>
                  <td><${StatusBadge} status=${entry.status} /></td>
                  <td class="hide-narrow">${entry.operationId ?? html`<span class="muted">none</span>`}</td>
                  <td class="hide-narrow">${entry.workspaceId ?? html`<span class="muted">none</span>`}</td>
                  <td class="num hide-narrow">${Math.round(entry.durationMs)}</td>
                </tr>`,
              )}
            </tbody>
          </table>
        </div>`
        }
      </div>
      ${
        selected &&
        html`<${RequestDetailPane}
        ctx=${ctx}
        requestId=${selected}
        onClose=${() => ctx.navigate({ view: "requests" })}
      />`
      }
    </div>
  </section>`;
}

/**
 * Small pieces the views share: a refusal's message, a status badge, a header table, copy, a workspace
 * picker. A table wider than a phone scrolls in its own box; a box with no control inside is focusable
 * and named, so a keyboard can scroll it too.
 */
import { html } from "htm/preact";
import { useState } from "preact/hooks";
import type { WorkspaceInfo } from "../api.js";
import { statusClass } from "../format.js";

/** A refusal or failure: the 2.2 body's message, and its field errors as a list. */
export function ErrorNote({ message, fields }: { message?: string; fields?: Record<string, string> }) {
  if (!message) return null;
  const entries = Object.entries(fields ?? {});
  return html`<div class="error" role="alert">
    <strong>${message}</strong>
    ${
      entries.length > 0 &&
      html`<ul>
      ${entries.map(([field, text]) => html`<li key=${field}><code>${field}</code>: ${text}</li>`)}
    </ul>`
    }
  </div>`;
}

export function StatusBadge({ status }: { status: number | null }) {
  const css = statusClass(status);
  return html`<span class=${`badge s${css}`}>${status ?? "reset"}</span>`;
}

export function HeadersTable({ headers, caption }: { headers: { name: string; value: string }[]; caption: string }) {
  if (headers.length === 0) return html`<p class="muted">No headers.</p>`;
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label=${caption}>
    <table>
      <caption class="sr-only">${caption}</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Value</th></tr></thead>
      <tbody>
        ${headers.map((h, i) => html`<tr key=${i}><td class="mono">${h.name}</td><td class="mono path">${h.value}</td></tr>`)}
      </tbody>
    </table>
  </div>`;
}

/** Copies `text` (never shown by this button) and says so in a live region. */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [said, setSaid] = useState("");
  const copy = () =>
    (navigator.clipboard?.writeText(text) ?? Promise.reject(new Error("no clipboard"))).then(
      () => setSaid("Copied"),
      () => setSaid("Copy failed: the browser refused the clipboard"),
    );
  return html`<span class="row">
    <button type="button" onClick=${copy}>${label}</button>
    <span role="status" class="muted">${said}</span>
  </span>`;
}

/**
 * A workspace picker; `any` adds an option for no workspace (value ""). Without `any`, "" shows the first
 * workspace: signed in with a key, the list is that workspace alone and naming none means it.
 */
export function WorkspaceSelect({
  id,
  label,
  value,
  workspaces,
  any,
  onChange,
}: {
  id: string;
  label: string;
  value: string;
  workspaces: WorkspaceInfo[];
  any?: string;
  onChange: (value: string) => void;
}) {
  // No option for "" (a key's dashboard names no workspace, meaning its own): show the first, the key's.
  const shown = any === undefined && value === "" ? (workspaces[0]?.workspaceId ?? "") : value;
  const known = workspaces.some((w) => w.workspaceId === shown);
  return html`<div class="field">
    <label for=${id}>${label}</label>
    <select id=${id} value=${shown} onChange=${(e: Event) => onChange((e.target as HTMLSelectElement).value)}>
      ${any !== undefined && html`<option value="">${any}</option>`}
      ${!known && shown !== "" && html`<option value=${shown}>${shown}</option>`}
      ${workspaces.map((w) => html`<option key=${w.workspaceId} value=${w.workspaceId}>${w.workspaceId}</option>`)}
    </select>
  </div>`;
}

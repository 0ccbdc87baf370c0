/**
 * Webhooks: the outbox (GET /__mock/webhook-deliveries), newest first, each delivery with its signature
 * header, whether that signature verifies with the webhook's current secret, and every attempt: when,
 * what the receiver answered. Redeliver makes one more attempt now. A `delivery` event (sent after each
 * attempt) replaces the delivery in place.
 */
import { html } from "htm/preact";
import { useState } from "preact/hooks";
import type { WebhookDelivery } from "../api.js";
import type { DashboardContext } from "../context.js";
import { anyWorkspaceOf, messageOf, useEvents, useLoad } from "../context.js";
import { clockDateTime, prettyBody } from "../format.js";
import { ErrorNote, WorkspaceSelect } from "./parts.js";

/** Deliveries drawn at most. */
const MAX_DELIVERIES = 100;

/** The newest first: by the time of the last attempt, else by when it is due, else as listed. */
function newestFirst(list: WebhookDelivery[]): WebhookDelivery[] {
  const when = (d: WebhookDelivery) => Date.parse(d.attempts.at(-1)?.at ?? d.nextAttemptAt ?? "") || 0;
  return [...list].reverse().sort((a, b) => when(b) - when(a));
}

export function WebhooksView({ ctx }: { ctx: DashboardContext }) {
  const deliveries = useLoad(() => ctx.api.deliveries(), []);
  const [workspaceId, setWorkspaceId] = useState("");
  useEvents(ctx, ["delivery", "dropped", "workspace"], (type, data: WebhookDelivery) => {
    const list = deliveries.data;
    if (type !== "delivery" || !list) return deliveries.reloadSoon();
    // The event is the delivery as the list shows it, `verified` included: it replaces its card or adds one.
    const at = list.findIndex((d) => d.deliveryId === data.deliveryId);
    deliveries.set(at === -1 ? [...list, data] : list.map((d, i) => (i === at ? data : d)));
  });
  const shown = newestFirst((deliveries.data ?? []).filter((d) => !workspaceId || d.workspaceId === workspaceId));
  return html`<section aria-labelledby="webhooks-title">
    <h2 id="webhooks-title">Webhooks</h2>
    <div class="toolbar">
      <${WorkspaceSelect}
        id="webhooks-workspace"
        label="Workspace"
        value=${workspaceId}
        workspaces=${ctx.workspaces}
        any=${anyWorkspaceOf(ctx, "Any workspace")}
        onChange=${setWorkspaceId}
      />
      <button type="button" onClick=${deliveries.reload}>Refresh</button>
    </div>
    <${ErrorNote} message=${deliveries.error} />
    ${
      deliveries.data &&
      shown.length === 0 &&
      html`<p class="muted">
      No deliveries yet. Subscribe a webhook (POST /v1/webhooks) to events, then cause one: a chat starts a conversation.
    </p>`
    }
    <div class="cards">
      ${shown.slice(0, MAX_DELIVERIES).map(
        (d) => html`<${DeliveryCard}
          key=${d.deliveryId}
          ctx=${ctx}
          delivery=${d}
          onChange=${(next: WebhookDelivery) =>
            deliveries.set((deliveries.data ?? []).map((x) => (x.deliveryId === next.deliveryId ? next : x)))}
        />`,
      )}
    </div>
  </section>`;
}

export function VerifiedBadge({ delivery }: { delivery: WebhookDelivery }) {
  if (delivery.verified === true) return html`<span class="badge ok">Verified</span>`;
  if (delivery.verified === false)
    return html`<span class="badge bad">Not verified</span>
      ${delivery.verifyError && html` <span class="muted">${delivery.verifyError}</span>`}`;
  return html`<span class="badge">Not signed yet</span>`;
}

function DeliveryCard({
  ctx,
  delivery: d,
  onChange,
}: {
  ctx: DashboardContext;
  delivery: WebhookDelivery;
  onChange: (next: WebhookDelivery) => void;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const redeliver = () => {
    setBusy(true);
    setError(undefined);
    ctx.api.redeliver(d.deliveryId).then(
      (next) => (onChange(next), setBusy(false)),
      (e) => (setError(messageOf(e)), setBusy(false)),
    );
  };
  const statusCss =
    d.status === "delivered" ? "ok" : d.status === "failed" ? "bad" : d.status === "pending" ? "warn" : "";
  const titleId = `delivery-${d.deliveryId}`;
  return html`<article class="card" aria-labelledby=${titleId} data-delivery-id=${d.deliveryId}>
    <h3 id=${titleId}>${d.event}</h3>
    <div class="row">
      <span class=${`badge ${statusCss}`}>${d.status}</span>
      <${VerifiedBadge} delivery=${d} />
      <span class="muted">${d.workspaceId}</span>
    </div>
    <dl class="facts">
      <dt>To</dt><dd class="mono">${d.url}</dd>
      <dt>Delivery</dt><dd class="mono">${d.deliveryId}</dd>
      <dt>Signature</dt><dd class="mono">X-Webhook-Signature: ${d.signature || "(not signed yet)"}</dd>
      ${d.nextAttemptAt && html`<dt>Next attempt</dt><dd>${clockDateTime(d.nextAttemptAt)}</dd>`}
    </dl>
    <h4>Attempts (${d.attempts.length})</h4>
    ${
      d.attempts.length === 0
        ? html`<p class="muted">None yet.</p>`
        : html`<ol class="attempts">
          ${d.attempts.map(
            (a, i) => html`<li key=${i}>
              <span class="mono">${clockDateTime(a.at)}</span>
              ${" "}
              ${
                a.statusCode != null
                  ? html`<span class=${`badge s${Math.floor(a.statusCode / 100)}xx`}>${a.statusCode}</span>`
                  : html`<span class="badge bad">no answer</span>`
              }
              ${a.durationMs !== undefined && html` <span class="muted">${Math.round(a.durationMs)} ms</span>`}
              ${a.error && html`<div class="error">${a.error}</div>`}
              ${
                a.response != null &&
                html`<div>
                <span class="muted">Receiver answered:</span>
                <pre aria-label=${`Receiver's answer to attempt ${i + 1}`}>${prettyBody(a.response) || "(empty)"}</pre>
              </div>`
              }
            </li>`,
          )}
        </ol>`
    }
    <details>
      <summary>Payload</summary>
      <pre aria-label="Payload">${prettyBody(d.payload)}</pre>
    </details>
    <div class="row">
      <button type="button" onClick=${redeliver} disabled=${busy} aria-label=${`Redeliver ${d.event} ${d.deliveryId}`}>
        ${busy ? "Redelivering…" : "Redeliver"}
      </button>
    </div>
    <${ErrorNote} message=${error} />
  </article>`;
}

/**
 * One request in detail (GET /__mock/requests/{id}): what was sent and answered (headers and bodies,
 * from the HAR entry: secrets already `[redacted]`, bodies cut at 64 KB), the validation errors of a
 * 400, the fault rule that applied, the upstream door's drift findings, and a curl line that sends it
 * again with the key as `$MOCK_API_KEY`.
 */
import { html } from "htm/preact";
import { useEffect, useRef } from "preact/hooks";
import type { DriftFinding, RequestDetail } from "../api.js";
import type { DashboardContext } from "../context.js";
import { useLoad } from "../context.js";
import { clockDateTime, curlOf, type HarRequestLike, prettyBody } from "../format.js";
import { CopyButton, ErrorNote, HeadersTable, StatusBadge } from "./parts.js";

interface HarLike {
  request: HarRequestLike & { queryString?: { name: string; value: string }[]; postData?: { comment?: string } };
  response: {
    status: number;
    statusText?: string;
    headers: { name: string; value: string }[];
    content?: { mimeType?: string; text?: string; comment?: string };
    _error?: string;
  };
}

/** The 2.2 body of a refused request, when the answer is one. */
export function errorBodyOf(text: string | undefined): { message?: string; validationErrors?: Record<string, string> } {
  try {
    const body = JSON.parse(text ?? "");
    return body && typeof body === "object" ? body : {};
  } catch {
    return {};
  }
}

export function RequestDetailPane({
  ctx,
  requestId,
  onClose,
}: {
  ctx: DashboardContext;
  requestId: string;
  onClose: () => void;
}) {
  const detail = useLoad(() => ctx.api.request(requestId), [requestId]);
  const heading = useRef<HTMLHeadingElement>(null);
  // Opening a request moves focus to it, so a keyboard user lands where the content is.
  useEffect(() => heading.current?.focus(), [requestId, detail.data !== undefined]);
  const gone = detail.errorStatus === 404;
  return html`<section class="pane" aria-labelledby="detail-title" data-testid="request-detail">
    <div class="pane-head">
      <h3 id="detail-title" tabindex="-1" ref=${heading}>
        ${detail.data ? `${detail.data.method} ${detail.data.path}` : `Request ${requestId}`}
      </h3>
      <button type="button" onClick=${onClose} aria-label="Close the request's detail">Close</button>
    </div>
    ${detail.loading && !detail.data && html`<p class="muted">Loading…</p>`}
    ${
      detail.error &&
      html`<${ErrorNote}
      message=${gone ? `Request ${requestId} is not in the journal (any more): the journal keeps the newest requests only.` : detail.error}
    />`
    }
    ${detail.data && html`<${DetailBody} detail=${detail.data} />`}
  </section>`;
}

function DetailBody({ detail }: { detail: RequestDetail }) {
  const har = detail.har as unknown as HarLike | undefined;
  const answer = errorBodyOf(har?.response.content?.text);
  const validation = Object.entries(answer.validationErrors ?? {});
  return html`
    <dl class="facts">
      <dt>Status</dt><dd><${StatusBadge} status=${detail.status} /> ${har?.response.statusText ?? ""}</dd>
      <dt>Operation</dt><dd>${detail.operationId ?? "none"}</dd>
      <dt>Workspace</dt><dd>${detail.workspaceId ?? "none (no key, or a refused one)"}</dd>
      <dt>At</dt><dd>${clockDateTime(detail.at)} <span class="muted">(its workspace's clock)</span></dd>
      <dt>Duration</dt><dd>${Math.round(detail.durationMs * 10) / 10} ms</dd>
      <dt>Request id</dt><dd class="mono">${detail.id}</dd>
      ${detail.source && html`<dt>Answered by</dt><dd>${detail.source}</dd>`}
    </dl>
    ${har && html`<h4>Send it again</h4><${Curl} text=${curlOf(har.request)} />`}
    ${
      detail.status === 400 &&
      html`<section aria-label="Validation errors">
      <h4>Why it was refused</h4>
      <div class="error">
        <strong>${answer.message ?? "Refused with 400."}</strong>
        ${
          validation.length > 0 &&
          html`<ul>
          ${validation.map(([field, text]) => html`<li key=${field}><code>${field}</code>: ${text}</li>`)}
        </ul>`
        }
      </div>
    </section>`
    }
    <${FaultPart} detail=${detail} />
    <${DriftPart} findings=${detail.drift} />
    ${har ? html`<${Exchange} har=${har} />` : html`<p class="note">Only requests to the API (/v1) keep their headers and bodies.</p>`}
  `;
}

function Curl({ text }: { text: string }) {
  return html`<div class="curl">
    <pre aria-label="curl command" data-testid="curl">${text}</pre>
    <${CopyButton} text=${text} label="Copy curl" />
  </div>`;
}

function FaultPart({ detail }: { detail: RequestDetail }) {
  if (!detail.faultId) return null;
  const rule = detail.fault;
  return html`<section aria-label="Fault rule applied">
    <h4>Fault rule applied</h4>
    ${
      rule
        ? html`<dl class="facts">
          <dt>Rule</dt><dd class="mono">${rule.faultId}</dd>
          <dt>Does</dt><dd>${describeRule(rule)}</dd>
          <dt>Matched / applied</dt><dd>${rule.matched} / ${rule.applied}</dd>
        </dl>`
        : html`<p class="note">Rule <code>${detail.faultId}</code> applied; it has been removed since.</p>`
    }
  </section>`;
}

/** A fault rule in words: "status 500 on listCalls, after 200 ms, with probability 0.5, 2 times". */
export function describeRule(rule: {
  operationId?: string;
  workspaceId?: string;
  kind?: string;
  status?: number;
  delayMs?: number;
  latency?: { distribution: string; ms?: number; minMs?: number; maxMs?: number; medianMs?: number; sigma?: number };
  probability?: number;
  times?: number;
  after?: number;
}): string {
  const what =
    rule.kind === "status" || (rule.kind === undefined && rule.status !== undefined)
      ? `status ${rule.status}`
      : (rule.kind ?? "delay only");
  const parts = [what, rule.operationId ? `on ${rule.operationId}` : "on every operation"];
  if (rule.workspaceId) parts.push(`in ${rule.workspaceId}`);
  if (rule.delayMs) parts.push(`after ${rule.delayMs} ms`);
  const l = rule.latency;
  if (l)
    parts.push(
      l.distribution === "fixed"
        ? `latency ${l.ms} ms`
        : l.distribution === "uniform"
          ? `latency ${l.minMs}–${l.maxMs} ms`
          : `latency lognormal (median ${l.medianMs} ms, sigma ${l.sigma})`,
    );
  if (rule.probability !== undefined && rule.probability !== 1) parts.push(`with probability ${rule.probability}`);
  if (rule.after) parts.push(`after ${rule.after} matches`);
  if (rule.times !== undefined) parts.push(`${rule.times} time${rule.times === 1 ? "" : "s"}`);
  return parts.join(", ");
}

function DriftPart({ findings }: { findings: DriftFinding[] }) {
  if (findings.length === 0) return null;
  return html`<section aria-label="Drift findings">
    <h4>Drift findings</h4>
    <${DriftList} findings=${findings} />
  </section>`;
}

export function DriftList({ findings }: { findings: DriftFinding[] }) {
  return html`<ul>
    ${findings.map(
      (f) => html`<li key=${f.id}>
        <span class=${`badge ${f.level === "documented" ? "bad" : "warn"}`}>${f.level}</span>
        <span class="badge">${f.where}</span> <strong>${f.rule}</strong> <code>${f.path}</code>: ${f.message}
      </li>`,
    )}
  </ul>`;
}

function Exchange({ har }: { har: HarLike }) {
  const { request, response } = har;
  const requestBody =
    request.postData?.text ??
    (request.postData?.params ?? [])
      .map((p) => `${p.name}=${p.fileName ? `@${p.fileName}` : (p.value ?? "")}`)
      .join("\n");
  const responseBody = response.content?.text;
  return html`
    <h4>Request</h4>
    <p class="mono path">${request.method} ${request.url}</p>
    <${HeadersTable} headers=${request.headers} caption="Request headers" />
    ${
      requestBody &&
      html`<h4>Request body</h4>
      <pre aria-label="Request body">${prettyBody(requestBody)}</pre>
      ${request.postData?.comment && html`<p class="muted">${request.postData.comment}</p>`}`
    }
    <h4>Response</h4>
    ${
      response._error
        ? html`<p class="note">No answer: ${response._error}</p>`
        : html`<p><${StatusBadge} status=${response.status} /> ${response.statusText ?? ""}</p>`
    }
    <${HeadersTable} headers=${response.headers} caption="Response headers" />
    ${
      responseBody &&
      html`<h4>Response body</h4>
      <pre aria-label="Response body">${prettyBody(responseBody)}</pre>
      ${response.content?.comment && html`<p class="muted">${response.content.comment}</p>`}`
    }
  `;
}

/**
 * Faults: make the mock fail on purpose. The form builds a POST /__mock/faults body (an operation from
 * GET /__mock/operations, a kind, a status among that operation's documented errors, a delay or latency,
 * probability, times, a workspace) and shows the 400's message and field errors when the mock refuses it.
 * The list shows each rule's matched and applied counters: refreshed on `fault` events and, at most a few
 * times a second, when a request a rule applied to goes by.
 */
import { html } from "htm/preact";
import { useState } from "preact/hooks";
import type { FaultRule, FaultRuleInput, JournalEntry, OperationInfo } from "../api.js";
import type { DashboardContext } from "../context.js";
import { anyWorkspaceOf, fieldErrorsOf, messageOf, useEvents, useLoad } from "../context.js";
import { describeRule } from "./request-detail.js";
import { ErrorNote, WorkspaceSelect } from "./parts.js";

/** The statuses a rule without an operation may name: those every operation documents. */
export const ANY_OPERATION_STATUSES = [400, 401, 403, 404, 500];

export type KindChoice = "status" | "reset" | "empty" | "slow" | "delay";
type LatencyChoice = "" | "fixed" | "uniform" | "lognormal";

export interface FaultForm {
  operationId: string;
  kind: KindChoice;
  status: string;
  delayMs: string;
  latency: LatencyChoice;
  latencyA: string;
  latencyB: string;
  trickleMs: string;
  probability: string;
  times: string;
  workspaceId: string;
}

export const EMPTY_FORM: FaultForm = {
  operationId: "",
  kind: "status",
  status: "500",
  delayMs: "",
  latency: "",
  latencyA: "",
  latencyB: "",
  trickleMs: "",
  probability: "1",
  times: "",
  workspaceId: "",
};

/** The error statuses (4xx, 5xx) an operation documents, or those every operation does. */
export function errorStatusesOf(operation: OperationInfo | undefined): number[] {
  return operation ? operation.statuses.filter((s) => s >= 400) : ANY_OPERATION_STATUSES;
}

/** The form as the body of POST /__mock/faults: empty fields left out, numbers as numbers (the mock judges them). */
export function faultInputOf(form: FaultForm): FaultRuleInput {
  const number = (text: string) => (text.trim() === "" ? undefined : Number(text));
  const input: FaultRuleInput = {};
  if (form.operationId) input.operationId = form.operationId;
  if (form.workspaceId) input.workspaceId = form.workspaceId;
  if (form.kind !== "delay") input.kind = form.kind;
  if (form.kind === "status") input.status = number(form.status);
  if (form.kind === "slow" && number(form.trickleMs) !== undefined) input.trickleMs = number(form.trickleMs);
  if (number(form.delayMs) !== undefined) input.delayMs = number(form.delayMs);
  const a = number(form.latencyA);
  const b = number(form.latencyB);
  if (form.latency === "fixed") input.latency = { distribution: "fixed", ms: a! };
  if (form.latency === "uniform") input.latency = { distribution: "uniform", minMs: a!, maxMs: b! };
  if (form.latency === "lognormal") input.latency = { distribution: "lognormal", medianMs: a!, sigma: b! };
  if (number(form.probability) !== undefined && number(form.probability) !== 1)
    input.probability = number(form.probability);
  if (number(form.times) !== undefined) input.times = number(form.times);
  return input;
}

const LATENCY_FIELDS: Record<Exclude<LatencyChoice, "">, [string, string | undefined]> = {
  fixed: ["Latency (ms)", undefined],
  uniform: ["Latency from (ms)", "to (ms)"],
  lognormal: ["Median (ms)", "Sigma"],
};

export function FaultsView({ ctx }: { ctx: DashboardContext }) {
  const faults = useLoad(() => ctx.api.faults(), []);
  useEvents(ctx, ["fault", "request", "dropped"], (type, data) => {
    if (type === "fault") faults.reload();
    else if (type === "dropped" || (data as JournalEntry).faultId) faults.reloadSoon();
  });
  return html`<section aria-labelledby="faults-title">
    <h2 id="faults-title">Faults</h2>
    <${FaultCreator} ctx=${ctx} onCreated=${faults.reload} />
    <h3 id="faults-list-title">Rules</h3>
    <${ErrorNote} message=${faults.error} />
    ${
      faults.data &&
      (faults.data.length === 0
        ? html`<p class="muted">No fault rules: every request is answered as the spec says.</p>`
        : html`<div class="table-wrap">
          <table aria-labelledby="faults-list-title">
            <thead>
              <tr>
                <th scope="col">Rule</th>
                <th scope="col">What it does</th>
                <th scope="col" class="num">Matched</th>
                <th scope="col" class="num">Applied</th>
                <th scope="col"><span class="sr-only">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              ${faults.data.map((rule) => html`<${FaultRow} key=${rule.faultId} ctx=${ctx} rule=${rule} onDeleted=${faults.reload} />`)}
            </tbody>
          </table>
        </div>`)
    }
  </section>`;
}

function FaultRow({ ctx, rule, onDeleted }: { ctx: DashboardContext; rule: FaultRule; onDeleted: () => void }) {
  const [error, setError] = useState<string | undefined>(undefined);
  const remove = () => ctx.api.deleteFault(rule.faultId).then(onDeleted, (e) => setError(messageOf(e)));
  return html`<tr data-fault-id=${rule.faultId}>
    <td class="mono">${rule.faultId}</td>
    <td>${describeRule(rule)}<${ErrorNote} message=${error} /></td>
    <td class="num">${rule.matched}</td>
    <td class="num">${rule.applied}</td>
    <td><button type="button" class="danger" onClick=${remove} aria-label=${`Delete rule ${rule.faultId}`}>Delete</button></td>
  </tr>`;
}

function FaultCreator({ ctx, onCreated }: { ctx: DashboardContext; onCreated: () => void }) {
  const [form, setForm] = useState<FaultForm>(EMPTY_FORM);
  const [error, setError] = useState<{ message: string; fields: Record<string, string> } | undefined>(undefined);
  const [created, setCreated] = useState<string | undefined>(undefined);
  const operation = ctx.operations.find((o) => o.operationId === form.operationId);
  const statuses = errorStatusesOf(operation);
  const set =
    (name: keyof FaultForm) =>
    (e: Event): void => {
      const value = (e.target as HTMLInputElement | HTMLSelectElement).value;
      setForm((f) => {
        const next = { ...f, [name]: value };
        // A new operation documents other statuses: keep the status only when it still is one.
        if (name === "operationId") {
          const list = errorStatusesOf(ctx.operations.find((o) => o.operationId === value));
          if (!list.includes(Number(f.status))) next.status = String(list.includes(500) ? 500 : (list[0] ?? ""));
        }
        return next;
      });
    };
  const submit = (e: Event) => {
    e.preventDefault();
    setError(undefined);
    setCreated(undefined);
    ctx.api.createFault(faultInputOf(form)).then(
      (rule) => (setCreated(`Rule ${rule.faultId} created: ${describeRule(rule)}.`), onCreated()),
      (failure) => setError({ message: messageOf(failure), fields: fieldErrorsOf(failure) }),
    );
  };
  const latencyLabels = form.latency ? LATENCY_FIELDS[form.latency] : undefined;
  const byTag = new Map<string, OperationInfo[]>();
  for (const op of ctx.operations) byTag.set(op.tag ?? "Other", [...(byTag.get(op.tag ?? "Other") ?? []), op]);
  return html`<form class="panel" noValidate onSubmit=${submit} aria-labelledby="fault-form-title">
    <fieldset>
      <legend id="fault-form-title">New fault rule</legend>
      <div class="toolbar">
        <div class="field">
          <label for="fault-operation">Operation</label>
          <select id="fault-operation" value=${form.operationId} onChange=${set("operationId")}>
            <option value="">Every operation</option>
            ${[...byTag].map(
              ([tag, ops]) => html`<optgroup key=${tag} label=${tag}>
                ${ops.map((op) => html`<option key=${op.operationId} value=${op.operationId}>${op.operationId} (${op.method} ${op.path})</option>`)}
              </optgroup>`,
            )}
          </select>
        </div>
        <div class="field">
          <label for="fault-kind">Kind</label>
          <select id="fault-kind" value=${form.kind} onChange=${set("kind")}>
            <option value="status">Error status</option>
            <option value="reset">Connection reset</option>
            <option value="empty">Empty body</option>
            <option value="slow">Slow body</option>
            <option value="delay">Delay only</option>
          </select>
        </div>
        ${
          form.kind === "status" &&
          html`<div class="field">
          <label for="fault-status">Status</label>
          <select id="fault-status" value=${form.status} onChange=${set("status")}>
            ${statuses.map((s) => html`<option key=${s} value=${String(s)}>${s}</option>`)}
          </select>
        </div>`
        }
        ${
          form.kind === "slow" &&
          html`<div class="field">
          <label for="fault-trickle">Body spread over (ms)</label>
          <input id="fault-trickle" type="number" min="0" placeholder="2000" value=${form.trickleMs} onInput=${set("trickleMs")} />
        </div>`
        }
        <div class="field">
          <label for="fault-delay">Delay (ms)</label>
          <input id="fault-delay" type="number" min="0" value=${form.delayMs} onInput=${set("delayMs")} />
        </div>
        <div class="field">
          <label for="fault-latency">Latency</label>
          <select id="fault-latency" value=${form.latency} onChange=${set("latency")}>
            <option value="">None</option>
            <option value="fixed">Fixed</option>
            <option value="uniform">Uniform</option>
            <option value="lognormal">Lognormal</option>
          </select>
        </div>
        ${
          latencyLabels &&
          html`<div class="field">
          <label for="fault-latency-a">${latencyLabels[0]}</label>
          <input id="fault-latency-a" type="number" min="0" value=${form.latencyA} onInput=${set("latencyA")} />
        </div>`
        }
        ${
          latencyLabels?.[1] &&
          html`<div class="field">
          <label for="fault-latency-b">${latencyLabels[1]}</label>
          <input id="fault-latency-b" type="number" min="0" step="any" value=${form.latencyB} onInput=${set("latencyB")} />
        </div>`
        }
        <div class="field">
          <label for="fault-probability">Probability</label>
          <input id="fault-probability" type="number" min="0" max="1" step="0.05" value=${form.probability} onInput=${set("probability")} />
        </div>
        <div class="field">
          <label for="fault-times">Times</label>
          <input id="fault-times" type="number" min="1" placeholder="unlimited" value=${form.times} onInput=${set("times")} />
        </div>
        <${WorkspaceSelect}
          id="fault-workspace"
          label="Workspace"
          value=${form.workspaceId}
          workspaces=${ctx.workspaces}
          any=${anyWorkspaceOf(ctx, "Every workspace")}
          onChange=${(workspaceId: string) => setForm((f) => ({ ...f, workspaceId }))}
        />
        <button type="submit" class="primary">Create fault</button>
      </div>
    </fieldset>
    <${ErrorNote} message=${error?.message} fields=${error?.fields} />
    ${created && html`<p class="note" role="status">${created}</p>`}
  </form>`;
}

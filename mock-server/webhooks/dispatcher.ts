/**
 * Webhook deliveries: for an event of an agent, one signed POST to each active webhook of that agent
 * subscribed to the event. The first attempt goes out once the work that sent the event is done (and
 * written, on a shared store); failures (non-2xx, no answer within the timeout) are retried on the
 * workspace's clock with exponential backoff, as scheduled tasks (store/tasks.ts), so that whichever
 * process finds a retry due sends it, once. Each workspace keeps its own bounded outbox.
 * Times: the payload's event time, attempt times and retries follow the workspace clock (virtual under
 * tests); the signature carries the wall-clock time of the attempt, so any receiver verifies it with
 * its own clock and the usual tolerance.
 */
import type { Delivery, Workspace } from "../store/workspace.js";
import type { WebhookEvent } from "../store/records.js";
import { type Store, WorkspaceGone } from "../store/store.js";
import type { Task } from "../store/tasks.js";
import type { WebhookAttemptOutcome } from "../core/telemetry.js";
import { SIGNATURE_HEADER, signWebhookPayload } from "./sign.js";

export type { Delivery };

export interface DispatcherOptions {
  /** Deliveries kept per workspace. */
  outboxCapacity: number;
  timeoutMs: number;
  /** Attempts in all, the first included. */
  maxAttempts: number;
  backoffSeconds: number;
  log: (line: string) => void;
  /**
   * A store shared by processes only (sharedLeaseMs): how long an attempt under way holds its delivery,
   * in clock time and in wall time both (a clock advanced past it must not cut an attempt short). A
   * process that dies while sending leaves the delivery's task due after it, and another process
   * attempts again.
   */
  leaseMs?: number;
  /** Told how each attempt ended, once it has (the metrics count attempts by outcome). */
  onAttempt?: (outcome: WebhookAttemptOutcome) => void;
}

/** The lease of an attempt on a store shared by processes: made again once it runs out (clock time). */
export const sharedLeaseMs = (timeoutMs: number = DEFAULT_DISPATCHER_OPTIONS.timeoutMs) => timeoutMs * 2 + 10_000;

export const DEFAULT_DISPATCHER_OPTIONS: Omit<DispatcherOptions, "log"> = {
  outboxCapacity: 1000,
  timeoutMs: 5000,
  maxAttempts: 6,
  backoffSeconds: 10,
};

/** Reserved example domains (RFC 2606, RFC 6761) go nowhere: seeded webhooks point there. */
const RESERVED_HOST = /(^|\.)(example\.(com|net|org)|example|test|invalid)$/i;

/** What an attempt needs once its delivery is claimed. */
interface Claim {
  deliveryId: string;
  secret: string;
  /** Attempts already recorded: the outcome is written only if no other attempt was recorded since. */
  attemptsBefore: number;
  /** A redelivery: one attempt, no retry after it. */
  once?: true;
}

/** How much of a receiver's answer an attempt keeps (the dashboard shows it). */
export const RESPONSE_EXCERPT_CHARS = 1024;

export class WebhookDispatcher {
  private readonly inFlight = new Set<Promise<void>>();
  /** The last delivery's place among all workspaces' deliveries: kept per mock, not per process. */
  private lastOrder = 0;

  /** Increasing within a mock, and close to wall-clock time across processes: how outboxes merge. */
  private nextOrder(): number {
    this.lastOrder = Math.max(this.lastOrder + 1, Date.now() * 1000);
    return this.lastOrder;
  }

  constructor(
    private readonly options: DispatcherOptions,
    /** Where attempts start once their event is written, and where their outcomes are written. */
    private readonly store: Pick<Store, "transactBackground" | "afterCommit">,
    /** Told of a delivery once it is written, and after each attempt (the live events). */
    private readonly announce: (delivery: Delivery, workspace: Workspace) => void = () => {},
  ) {}

  emit(workspace: Workspace, agentId: string, event: WebhookEvent["event"], data: WebhookEvent["data"]): Delivery[] {
    const hooks = workspace.collections.webhooks.page({
      where: { agentId, active: true },
      order: "oldest",
      page: 0,
      size: 1000,
    }).items;
    const created: Delivery[] = [];
    for (const hook of hooks) {
      if (
        !hook.events
          .split(",")
          .map((e) => e.trim())
          .includes(event)
      )
        continue;
      const payload: WebhookEvent = {
        eventId: workspace.random.uuid(),
        event,
        createdAt: workspace.clock.iso(),
        workspaceId: workspace.workspaceId,
        agentId,
        data,
      };
      const delivery: Delivery = {
        deliveryId: workspace.random.uuid(),
        webhookId: hook.webhookId,
        workspaceId: workspace.workspaceId,
        event,
        url: hook.url,
        payload: JSON.stringify(payload),
        signature: "",
        status: "pending",
        nextAttemptAt: workspace.clock.iso(),
        attempts: [],
        order: this.nextOrder(),
      };
      this.push(workspace, delivery);
      created.push(delivery);
      // Written with the event, the lease makes this process the one that sends the first attempt.
      this.lease(workspace, delivery.deliveryId, hook.secret);
      const claim = { deliveryId: delivery.deliveryId, secret: hook.secret, attemptsBefore: 0 };
      this.store.afterCommit(workspace, (undone) => {
        if (undone) return;
        this.announce(shown(delivery), workspace);
        this.track(this.send(workspace, claim));
      });
    }
    return created;
  }

  /**
   * A delivery's task fell due (a retry, or a lease left by a process that died while sending): the
   * task's run claims the delivery; the attempt goes out once that claim is written.
   */
  step(workspace: Workspace, task: Task): Promise<void> | undefined {
    const delivery = workspace.outbox.get(task.ref);
    if (delivery?.status !== "pending") return undefined;
    // A lease whose attempt may still be under way (its wall-clock deadline is ahead: an advance of a
    // virtual or fast clock overtook it) is held on, not attempted a second time.
    if (task.expect && Date.now() < Number(task.expect)) {
      workspace.tasks.schedule({ ...task, at: workspace.clock.nowMs() + this.options.leaseMs! });
      return undefined;
    }
    this.lease(workspace, delivery.deliveryId, task.secret ?? "");
    const claim = {
      deliveryId: delivery.deliveryId,
      secret: task.secret ?? "",
      attemptsBefore: delivery.attempts.length,
    };
    return new Promise<void>((resolve) =>
      this.store.afterCommit(workspace, (undone) => {
        if (undone) return resolve();
        const sent = this.send(workspace, claim);
        this.track(sent);
        resolve(sent.catch(() => undefined));
      }),
    );
  }

  /** Every workspace's deliveries, newest first, the newest outboxCapacity of them. */
  list(workspaces: Workspace[]): Delivery[] {
    const all = workspaces.flatMap((w) => w.outbox.all());
    all.sort((a, b) => b.order - a.order);
    return all.slice(0, this.options.outboxCapacity).map(shown);
  }

  /**
   * POST /__mock/webhook-deliveries/{id}/redeliver: one more attempt now, signed with the webhook's current
   * secret, whatever the delivery's status; no retry follows it. Resolves once the attempt is recorded.
   * `undefined`: no such delivery; a string: why it cannot be sent (its webhook is gone).
   */
  async redeliver(workspace: Workspace, deliveryId: string): Promise<Delivery | string | undefined> {
    let claim: Claim | string | undefined;
    await this.store.transactBackground(workspace, () => {
      const delivery = workspace.outbox.get(deliveryId);
      if (!delivery) return;
      const hook = workspace.collections.webhooks.get(delivery.webhookId);
      if (!hook) {
        claim = `the webhook ${delivery.webhookId} of delivery ${deliveryId} no longer exists: there is no secret to sign with`;
        return;
      }
      workspace.tasks.cancel(`delivery:${deliveryId}`);
      workspace.outbox.replace(deliveryId, { ...delivery, status: "pending", nextAttemptAt: workspace.clock.iso() });
      claim = { deliveryId, secret: hook.secret, attemptsBefore: delivery.attempts.length, once: true };
    });
    if (claim === undefined || typeof claim === "string") return claim;
    const sent = this.send(workspace, claim);
    this.track(sent);
    await sent;
    const delivery = workspace.outbox.get(deliveryId);
    return delivery && shown(delivery);
  }

  /** Resolves when every attempt under way has finished (tests and shutdown wait on this). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  private track(work: Promise<void>): void {
    const tracked = work
      .catch((error) => {
        // Its workspace was deleted meanwhile: the attempt's outcome has nowhere to go, as in memory.
        if (!(error instanceof WorkspaceGone))
          this.options.log(`webhook delivery attempt failed unexpectedly: ${(error as Error)?.stack ?? String(error)}`);
      })
      .finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
  }

  private lease(workspace: Workspace, deliveryId: string, secret: string): void {
    if (this.options.leaseMs === undefined) return;
    const until = String(Date.now() + this.options.leaseMs);
    workspace.tasks.schedule({
      kind: "delivery",
      ref: deliveryId,
      at: workspace.clock.nowMs() + this.options.leaseMs,
      secret,
      expect: until,
    });
  }

  private push(workspace: Workspace, delivery: Delivery): void {
    workspace.outbox.create(delivery);
    if (workspace.outbox.size > this.options.outboxCapacity) {
      // Drop the oldest finished delivery; if all are pending, the oldest one.
      const kept = workspace.outbox.all();
      const dropped = kept.find((d) => d.status !== "pending") ?? kept[0];
      workspace.outbox.delete(dropped.deliveryId);
      workspace.tasks.cancel(`delivery:${dropped.deliveryId}`);
    }
  }

  private async send(workspace: Workspace, claim: Claim): Promise<void> {
    const claimed = workspace.outbox.get(claim.deliveryId);
    if (!claimed) return;
    const at = workspace.clock.now();
    const signature = signWebhookPayload(claimed.payload, claim.secret, new Date());
    if (RESERVED_HOST.test(safeHost(claimed.url))) {
      const attempt = {
        at: at.toISOString(),
        statusCode: null,
        error: "reserved example domain: not sent",
        durationMs: 0,
      };
      this.options.onAttempt?.("skipped");
      return this.record(workspace, claim, await signature, attempt, "skipped");
    }
    const started = performance.now();
    let statusCode: number | null = null;
    let error: string | null = null;
    let responseText: string | null = null;
    let outcome: WebhookAttemptOutcome;
    const signed = await signature;
    try {
      const response = await fetch(claimed.url, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          [SIGNATURE_HEADER]: signed,
          "X-Webhook-Id": claimed.webhookId,
          "X-Webhook-Event": claimed.event,
        },
        body: claimed.payload,
        signal: AbortSignal.timeout(this.options.timeoutMs),
        redirect: "manual",
      });
      statusCode = response.status;
      responseText = await excerpt(response);
      if (statusCode < 200 || statusCode >= 300) error = `receiver answered ${statusCode}`;
      outcome = error === null ? "delivered" : "failed";
    } catch (e) {
      outcome = "error";
      error =
        (e as Error).name === "TimeoutError"
          ? `no answer within ${this.options.timeoutMs} ms`
          : `request failed: ${(e as Error).message}`;
    }
    const attempt = {
      at: at.toISOString(),
      statusCode,
      error,
      durationMs: Math.round(performance.now() - started),
      response: responseText,
    };
    this.options.onAttempt?.(outcome);
    // A workspace reset or deleted while this attempt was under way has no such delivery any more: nothing is recorded.
    return this.record(workspace, claim, signed, attempt, error === null ? "delivered" : undefined);
  }

  /** Writes an attempt's outcome, and schedules the retry it calls for, unless another attempt was recorded meanwhile. */
  private async record(
    workspace: Workspace,
    claim: Claim,
    signature: string,
    attempt: Delivery["attempts"][number],
    outcome?: "delivered" | "skipped",
  ): Promise<void> {
    let failure: string | undefined;
    let written: Delivery | undefined;
    await this.store.transactBackground(workspace, () => {
      const current = workspace.outbox.get(claim.deliveryId);
      if (current?.status !== "pending" || current.attempts.length !== claim.attemptsBefore) return;
      const attempts = [...current.attempts, attempt];
      const next: Delivery = { ...current, signature, attempts, status: outcome ?? "pending", nextAttemptAt: null };
      const taskId = `delivery:${claim.deliveryId}`;
      if (!outcome && (claim.once || attempts.length >= this.options.maxAttempts)) {
        next.status = "failed";
        failure = `webhook delivery ${current.deliveryId} to ${withoutUserInfo(current.url)} failed after ${attempts.length} attempts: ${attempt.error}`;
      }
      if (next.status === "pending") {
        const retryAt = workspace.clock.nowMs() + this.options.backoffSeconds * 2 ** (attempts.length - 1) * 1000;
        next.nextAttemptAt = new Date(retryAt).toISOString();
        workspace.tasks.schedule({ kind: "delivery", ref: claim.deliveryId, at: retryAt, secret: claim.secret });
      } else workspace.tasks.cancel(taskId);
      workspace.outbox.replace(claim.deliveryId, next);
      written = next;
    });
    if (failure && !claim.once) this.options.log(failure);
    if (written) this.announce(shown(written), workspace);
  }
}

/** A delivery as the control plane shows it: without its place among the outboxes. */
function shown({ order: _order, ...delivery }: Delivery): Delivery {
  return delivery as Delivery;
}

/** The first RESPONSE_EXCERPT_CHARS of a receiver's answer, the rest not read; null for an empty or unreadable body. */
async function excerpt(response: Response): Promise<string | null> {
  if (!response.body) return null;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    while (text.length < RESPONSE_EXCERPT_CHARS) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    // A receiver that cuts its answer short still answered: what arrived is kept.
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return text.length > 0 ? text.slice(0, RESPONSE_EXCERPT_CHARS) : null;
}

function safeHost(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return "invalid";
  }
}

/** A receiver URL may carry a user and password: logs get it without them. */
function withoutUserInfo(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = "";
    parsed.password = "";
    return parsed.href;
  } catch {
    return "(invalid URL)";
  }
}

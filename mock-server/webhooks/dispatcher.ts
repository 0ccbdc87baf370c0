/**
 * Webhook deliveries: for an event of an agent, one signed POST to each active webhook of that agent
 * subscribed to the event. The first attempt goes out at once; failures (non-2xx, no answer within
 * the timeout) are retried on the workspace's clock with exponential backoff. The outbox is bounded.
 * Times: the payload's event time, attempt times and retries follow the workspace clock (virtual under
 * tests); the signature carries the wall-clock time of the attempt, so any receiver verifies it with
 * its own clock and the usual tolerance.
 */
import type { Workspace } from "../store/workspace.js";
import type { WebhookEvent } from "../store/records.js";
import { SIGNATURE_HEADER, signWebhookPayload } from "./sign.js";
import type { components as MockControlComponents } from "../../generated/mock-control.js";

/** Outbox entries have the shape spec/mock-control.yaml gives GET /__mock/webhook-deliveries. */
export type Delivery = MockControlComponents["schemas"]["WebhookDelivery"];

export interface DispatcherOptions {
  outboxCapacity: number;
  timeoutMs: number;
  /** Attempts in all, the first included. */
  maxAttempts: number;
  backoffSeconds: number;
  log: (line: string) => void;
}

export const DEFAULT_DISPATCHER_OPTIONS: Omit<DispatcherOptions, "log"> = {
  outboxCapacity: 1000,
  timeoutMs: 5000,
  maxAttempts: 6,
  backoffSeconds: 10,
};

/** Reserved example domains (RFC 2606, RFC 6761) go nowhere: seeded webhooks point there. */
const RESERVED_HOST = /(^|\.)(example\.(com|net|org)|example|test|invalid)$/i;

export class WebhookDispatcher {
  private outbox: Delivery[] = [];
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly options: DispatcherOptions) {}

  emit(workspace: Workspace, agentId: string, event: WebhookEvent["event"], data: WebhookEvent["data"]): Delivery[] {
    const hooks = workspace.collections.webhooks.page({ where: { agentId, active: true }, order: "oldest", page: 0, size: 1000 }).items;
    const created: Delivery[] = [];
    for (const hook of hooks) {
      if (!hook.events.split(",").map((e) => e.trim()).includes(event)) continue;
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
      };
      this.push(delivery);
      created.push(delivery);
      this.track(this.attempt(workspace, delivery, hook.secret));
    }
    return created;
  }

  /** Newest first. */
  list(): Delivery[] {
    return [...this.outbox].reverse();
  }

  /** Empties the outbox, or drops one workspace's deliveries from it. */
  clear(workspaceId?: string): void {
    this.outbox = workspaceId === undefined ? [] : this.outbox.filter((d) => d.workspaceId !== workspaceId);
  }

  get size(): number {
    return this.outbox.length;
  }

  /** Resolves when every attempt under way has finished (tests and shutdown wait on this). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  private track(work: Promise<void>): void {
    const tracked = work
      .catch((error) => this.options.log(`webhook delivery attempt failed unexpectedly: ${(error as Error)?.stack ?? String(error)}`))
      .finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
  }

  private push(delivery: Delivery): void {
    this.outbox.push(delivery);
    if (this.outbox.length > this.options.outboxCapacity) {
      // Drop the oldest finished delivery; if all are pending, the oldest one.
      const i = this.outbox.findIndex((d) => d.status !== "pending");
      this.outbox.splice(i === -1 ? 0 : i, 1);
    }
  }

  private async attempt(workspace: Workspace, delivery: Delivery, secret: string): Promise<void> {
    const at = workspace.clock.now();
    const generation = workspace.generation;
    // Web Crypto signs asynchronously; a delivery to a reserved domain is marked skipped at once all the same.
    const signed = signWebhookPayload(delivery.payload, secret, new Date()).then((signature) => void (delivery.signature = signature));
    if (RESERVED_HOST.test(safeHost(delivery.url))) {
      delivery.attempts.push({ at: at.toISOString(), statusCode: null, error: "reserved example domain: not sent", durationMs: 0 });
      delivery.status = "skipped";
      delivery.nextAttemptAt = null;
      return signed;
    }
    await signed;
    const started = performance.now();
    let statusCode: number | null = null;
    let error: string | null = null;
    try {
      const response = await fetch(delivery.url, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          [SIGNATURE_HEADER]: delivery.signature,
          "X-Webhook-Id": delivery.webhookId,
          "X-Webhook-Event": delivery.event,
        },
        body: delivery.payload,
        signal: AbortSignal.timeout(this.options.timeoutMs),
        redirect: "manual",
      });
      statusCode = response.status;
      await response.body?.cancel();
      if (statusCode < 200 || statusCode >= 300) error = `receiver answered ${statusCode}`;
    } catch (e) {
      error = (e as Error).name === "TimeoutError" ? `no answer within ${this.options.timeoutMs} ms` : `request failed: ${(e as Error).message}`;
    }
    delivery.attempts.push({ at: at.toISOString(), statusCode, error, durationMs: Math.round(performance.now() - started) });
    if (error === null) {
      delivery.status = "delivered";
      delivery.nextAttemptAt = null;
    } else if (delivery.attempts.length >= this.options.maxAttempts) {
      delivery.status = "failed";
      delivery.nextAttemptAt = null;
      this.options.log(`webhook delivery ${delivery.deliveryId} to ${withoutUserInfo(delivery.url)} failed after ${delivery.attempts.length} attempts: ${error}`);
    } else {
      const wait = this.options.backoffSeconds * 2 ** (delivery.attempts.length - 1) * 1000;
      const next = workspace.clock.nowMs() + wait;
      delivery.nextAttemptAt = new Date(next).toISOString();
      // A workspace reset or deleted while this attempt was under way wants no retry.
      if (workspace.generation !== generation) return;
      workspace.clock.schedule(next, () => {
        const retry = this.attempt(workspace, delivery, secret);
        this.track(retry);
        return retry;
      });
    }
  }
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

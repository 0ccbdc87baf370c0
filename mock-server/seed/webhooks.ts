/**
 * Webhooks (2.13). In the list shape `events` is one comma-separated string (the kit's reading of
 * "string in list output"); agent settings show the same webhook with `events` as an array.
 * Targets use the reserved example.com domain so a seeded webhook never posts anywhere real.
 */
import type { Webhook } from "../store/records.js";
import { agentReference, lowerAlnum, lowerHex, type BuildContext } from "./context.js";

export const WEBHOOK_EVENT_SETS = ["conversation_started", "conversation_started,conversation_ended"] as const;

const PURPOSES = ["CRM sync", "Analytics", "Slack alerts", "Data warehouse", "Ticketing", "Audit log"];

/** `whsec_` and 32 lowercase hex digits. */
export function newWebhookSecret(ctx: BuildContext): string {
  return `whsec_${lowerHex(ctx, 32)}`;
}

export function buildWebhook(ctx: BuildContext, partial: Partial<Webhook> = {}): Webhook {
  const { faker, workspace } = ctx;
  const purpose = faker.helpers.arrayElement(PURPOSES);
  return {
    workspaceId: workspace.workspaceId,
    webhookId: partial.webhookId ?? faker.string.uuid(),
    name: partial.name ?? purpose,
    agentId: partial.agentId ?? agentReference(ctx).agentId,
    active: partial.active ?? faker.datatype.boolean(0.75),
    secret: partial.secret ?? newWebhookSecret(ctx),
    events: partial.events ?? faker.helpers.arrayElement(WEBHOOK_EVENT_SETS),
    url:
      partial.url ?? `https://hooks.example.com/${purpose.toLowerCase().replace(/\s+/g, "-")}/${lowerAlnum(ctx, 12)}`,
  };
}

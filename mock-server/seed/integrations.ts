/**
 * Integrations (2.4 to 2.6). The record carries only the auth summary; the secret part (token,
 * password, API key value) goes to workspace.credentials, which is never serialised, so a tool run
 * can apply it while no response can leak it.
 */
import type { Integration, IntegrationAuth, IntegrationTool } from "../store/records.js";
import type { IntegrationCredentials } from "../store/workspace.js";
import { clampPast, iso, lowerAlnum, lowerHex, parseTime, DAY, SECOND, type BuildContext } from "./context.js";

type AuthType = IntegrationAuth["authType"];
type KeyValue = IntegrationAuth["headers"][number];

interface ToolTemplate {
  name: string;
  description: string;
  method: string;
  path: string;
  queryParams?: Record<string, string>;
  bodyParams?: Record<string, string>;
}

/** Services an integration can stand for, each with the tools such a service typically offers. */
const SERVICES: { kind: string; host: string; tools: ToolTemplate[] }[] = [
  {
    kind: "CRM",
    host: "crm.example.com",
    tools: [
      {
        name: "lookup_customer",
        description: "Find the caller's customer record by phone number.",
        method: "GET",
        path: "/api/customers",
        queryParams: { phone: "{{callerNumber}}" },
      },
      {
        name: "get_customer",
        description: "Read a customer record by id.",
        method: "GET",
        path: "/api/customers/{{customerId}}",
      },
      {
        name: "add_note",
        description: "Add a note about the conversation to the customer record.",
        method: "POST",
        path: "/api/customers/{{customerId}}/notes",
        bodyParams: { text: "{{note}}" },
      },
    ],
  },
  {
    kind: "Calendar",
    host: "calendar.example.net",
    tools: [
      {
        name: "check_availability",
        description: "List free slots on a given day.",
        method: "GET",
        path: "/v2/slots",
        queryParams: { date: "{{date}}", duration: "30" },
      },
      {
        name: "book_appointment",
        description: "Book a slot for the customer.",
        method: "POST",
        path: "/v2/appointments",
        bodyParams: { slotId: "{{slotId}}", name: "{{customerName}}" },
      },
      {
        name: "cancel_appointment",
        description: "Cancel an existing appointment.",
        method: "DELETE",
        path: "/v2/appointments/{{appointmentId}}",
      },
    ],
  },
  {
    kind: "Order system",
    host: "orders.example.org",
    tools: [
      {
        name: "lookup_order",
        description: "Status and tracking of an order.",
        method: "GET",
        path: "/orders/{{orderId}}",
      },
      {
        name: "start_return",
        description: "Open a return for an order.",
        method: "POST",
        path: "/orders/{{orderId}}/returns",
        bodyParams: { reason: "{{reason}}" },
      },
    ],
  },
  {
    kind: "Helpdesk",
    host: "support.example.com",
    tools: [
      {
        name: "create_ticket",
        description: "Open a support ticket when the issue needs follow-up.",
        method: "POST",
        path: "/api/tickets",
        bodyParams: { subject: "{{subject}}", email: "{{email}}" },
      },
      {
        name: "get_ticket",
        description: "Read the status of a ticket.",
        method: "GET",
        path: "/api/tickets/{{ticketId}}",
      },
    ],
  },
  {
    kind: "Payments",
    host: "pay.example.com",
    tools: [
      {
        name: "get_balance",
        description: "Outstanding balance of the customer's account.",
        method: "GET",
        path: "/accounts/{{accountId}}/balance",
      },
      {
        name: "send_payment_link",
        description: "Text the customer a payment link.",
        method: "POST",
        path: "/payment-links",
        bodyParams: { accountId: "{{accountId}}", phone: "{{callerNumber}}" },
      },
    ],
  },
];

export function buildIntegration(ctx: BuildContext, partial: Partial<Integration> = {}): Integration {
  const { faker, workspace } = ctx;
  const integrationId = partial.integrationId ?? faker.string.uuid();
  const service = faker.helpers.arrayElement(SERVICES);
  const createdMs = parseTime(partial.createdAt) ?? ctx.now.getTime();
  // Tools and auth were added after the integration; none of it is dated after now.
  const later = () => clampPast(ctx, createdMs + faker.number.int({ min: SECOND, max: 3 * DAY }), createdMs);

  const tools =
    partial.tools ??
    faker.helpers.arrayElements(service.tools, { min: 0, max: Math.min(3, service.tools.length) }).map((t) => {
      const at = iso(later());
      return buildIntegrationTool(ctx, integrationId, service.host, t, at);
    });

  let authentication: IntegrationAuth | null;
  if (partial.authentication === null) authentication = null;
  else if (partial.authentication !== undefined || faker.datatype.boolean(0.75)) {
    const type: AuthType =
      partial.authentication?.authType ?? faker.helpers.arrayElement(["BEARER", "BASIC", "API_KEY", "NONE"] as const);
    const headers: KeyValue[] =
      partial.authentication?.headers ??
      (faker.datatype.boolean(0.4) ? [{ key: "X-Client", value: "voice-agent" }] : []);
    const at = iso(later());
    authentication = {
      authId: partial.authentication?.authId ?? faker.string.uuid(),
      integrationId,
      authType: type,
      headers,
      createdAt: partial.authentication?.createdAt ?? at,
      updatedAt: partial.authentication?.updatedAt ?? at,
    };
    // An id already in use will be refused by the store: leave that integration's credentials alone.
    if (!workspace.collections.integrations.has(integrationId)) {
      workspace.credentials.set(integrationId, makeCredentials(ctx, type, headers));
    }
  } else authentication = null;

  const stamps = [
    createdMs,
    ...tools.map((t) => parseTime(t.updatedAt) ?? createdMs),
    parseTime(authentication?.updatedAt) ?? createdMs,
  ];
  const updatedMs = Math.max(parseTime(partial.updatedAt) ?? -Infinity, ...stamps);
  return {
    integrationId,
    name: partial.name ?? `${faker.company.name()} ${service.kind}`,
    description:
      partial.description !== undefined
        ? partial.description
        : faker.datatype.boolean(0.8)
          ? `Use when the customer asks about something kept in the ${service.kind}.`
          : null,
    authentication,
    tools,
    createdAt: iso(createdMs),
    updatedAt: iso(updatedMs),
  };
}

function buildIntegrationTool(
  ctx: BuildContext,
  integrationId: string,
  host: string,
  t: ToolTemplate,
  at: string,
): IntegrationTool {
  return {
    toolId: ctx.faker.string.uuid(),
    integrationId,
    name: t.name,
    description: t.description,
    method: t.method,
    url: `https://${host}${t.path}`,
    scope: "local",
    headers: { Accept: "application/json" },
    queryParams: { ...(t.queryParams ?? {}) },
    bodyParams: { ...(t.bodyParams ?? {}) },
    createdAt: at,
    updatedAt: at,
  };
}

/**
 * The secret payload E5 would have received for this auth type. The generated union types authType
 * with schema names (the spec's discriminator has no mapping), so the shape is asserted once here.
 */
export function makeCredentials(ctx: BuildContext, authType: AuthType, headers: KeyValue[]): IntegrationCredentials {
  const { faker } = ctx;
  const extra = headers.length > 0 ? { headers } : {};
  switch (authType) {
    case "BEARER":
      return { authType, token: `tok_${lowerAlnum(ctx, 32)}`, ...extra } as unknown as IntegrationCredentials;
    case "BASIC":
      return {
        authType,
        username: faker.internet.username().toLowerCase(),
        password: faker.internet.password({ length: 16 }),
        ...extra,
      } as unknown as IntegrationCredentials;
    case "API_KEY": {
      const position = faker.helpers.arrayElement(["header", "query"] as const);
      return {
        authType,
        apiKey: { key: position === "header" ? "X-API-Key" : "api_key", value: lowerHex(ctx, 40), position },
        ...extra,
      } as unknown as IntegrationCredentials;
    }
    default:
      return { authType: "NONE", ...extra } as unknown as IntegrationCredentials;
  }
}

/**
 * Mock tool data: canned answers a simulated tool call returns during a test run. Beyond the id and
 * the reference fields (2.7) the shape is the kit's own (records.ts). The response body agrees with
 * the status code, so a 404 entry reads like a 404.
 */
import type { MockToolData } from "../store/records.js";
import { iso, parseTime, type BuildContext } from "./context.js";

const CASES: { toolAlias: string; name: string; statusCode: number; body: Record<string, unknown> }[] = [
  {
    toolAlias: "lookup_order",
    name: "Order shipped",
    statusCode: 200,
    body: { orderId: "A-1042", status: "shipped", carrier: "Example Post", eta: "2 days" },
  },
  { toolAlias: "lookup_order", name: "Order not found", statusCode: 404, body: { error: "order not found" } },
  { toolAlias: "check_availability", name: "Two free slots", statusCode: 200, body: { slots: ["09:30", "14:00"] } },
  { toolAlias: "check_availability", name: "Fully booked", statusCode: 200, body: { slots: [] } },
  {
    toolAlias: "book_appointment",
    name: "Booking confirmed",
    statusCode: 201,
    body: { appointmentId: "apt_7731", confirmed: true },
  },
  { toolAlias: "create_ticket", name: "Ticket created", statusCode: 201, body: { ticketId: "T-55812" } },
  {
    toolAlias: "get_balance",
    name: "Balance due",
    statusCode: 200,
    body: { balance: 42.5, currency: "USD", dueDate: "2026-11-15" },
  },
  { toolAlias: "get_balance", name: "Payments service down", statusCode: 503, body: { error: "service unavailable" } },
];

/** The fixed cases, in order, so the seed can cover each one. */
export const MOCK_TOOL_CASES = CASES;

export function buildMockToolData(ctx: BuildContext, partial: Partial<MockToolData> = {}): MockToolData {
  const { faker, workspace } = ctx;
  // Prefer a case that agrees with what is given, so name and body fit the status code.
  const fitting = CASES.filter(
    (c) =>
      (partial.statusCode === undefined || c.statusCode === partial.statusCode) &&
      (partial.toolAlias === undefined || c.toolAlias === partial.toolAlias),
  );
  const template = faker.helpers.arrayElement(fitting.length > 0 ? fitting : CASES);
  return {
    mockToolDataId: partial.mockToolDataId ?? faker.string.uuid(),
    workspaceId: workspace.workspaceId,
    toolAlias: partial.toolAlias ?? template.toolAlias,
    name: partial.name ?? template.name,
    statusCode: partial.statusCode ?? template.statusCode,
    responseBody: partial.responseBody ?? JSON.stringify(template.body),
    createdAt: iso(parseTime(partial.createdAt) ?? ctx.now.getTime()),
  };
}

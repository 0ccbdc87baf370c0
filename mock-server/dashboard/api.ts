/**
 * The dashboard's client of the control plane (spec/mock-control.yaml): one small function per call
 * it makes. Every request carries X-Mock-Dashboard, so the mock neither journals it nor sends it on
 * the event stream (looking does not push the app's requests out of the journal, and cannot loop),
 * and the control token and API key when the page was given them; neither is ever shown or logged.
 * A refusal throws a ControlError holding the 2.2 error body, whose message the views show; a 401 also
 * tells the connection's onUnauthorized, so the page can ask for the token or a key (sign-in.ts).
 */
import type { components } from "../../generated/mock-control.js";

type Schemas = components["schemas"];
export type JournalEntry = Schemas["JournalEntry"];
export type RequestDetail = Schemas["RequestDetail"];
export type WebhookDelivery = Schemas["WebhookDelivery"];
export type FaultRule = Schemas["FaultRule"];
export type FaultRuleInput = Partial<Schemas["FaultRuleInput"]>;
export type OperationInfo = Schemas["OperationInfo"];
export type ClockState = Schemas["ClockState"];
export type PendingTask = Schemas["PendingTask"];
export type WorkspaceInfo = Schemas["WorkspaceInfo"];
export type WorkspaceCreated = Schemas["WorkspaceCreated"];
export type Coverage = Schemas["Coverage"];
export type DriftFinding = Schemas["DriftFinding"];
export type ErrorBody = Schemas["Error"];

/** Where the mock is and how to reach it. */
export interface Connection {
  /** Where /v1 and /__mock live (a mount's path included), without a trailing slash. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer ...` (a mock started with --control-token). */
  controlToken?: string;
  /** Sent as `X-API-Key` (a workspace's own key controls that workspace). */
  apiKey?: string;
  fetch: typeof fetch;
  /**
   * Told when the mock answers 401 (its control token is asked for, or the secret given is no longer
   * good): the dashboard signs out and shows its sign-in view. Unset when the credentials came from
   * mountDashboard's options: then a refusal shows where it happened, as any other.
   */
  onUnauthorized?: (message: string) => void;
}

/** A refused control request: the 2.2 body's message, and its per-field errors when there are some. */
export class ControlError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly fieldErrors: Record<string, string> = {},
  ) {
    super(message);
    this.name = "ControlError";
  }
}

export interface RequestFilter {
  operationId?: string;
  workspaceId?: string;
  method?: string;
  status?: number;
}

export type DashboardApi = ReturnType<typeof createDashboardApi>;

/** The header that keeps the dashboard's own requests out of the journal and the event stream. */
export const DASHBOARD_HEADER = "X-Mock-Dashboard";

export function headersOf(connection: Pick<Connection, "controlToken" | "apiKey">): Record<string, string> {
  return {
    [DASHBOARD_HEADER]: "1",
    ...(connection.controlToken && { Authorization: `Bearer ${connection.controlToken}` }),
    ...(connection.apiKey && { "X-API-Key": connection.apiKey }),
  };
}

/** Where the mock is, seen from its /__mock/ui page: `https://host/mock/__mock/ui` -> `https://host/mock`. */
export function baseUrlOfPage(location: { origin: string; pathname: string }): string {
  const at = location.pathname.indexOf("/__mock/ui");
  return location.origin + (at === -1 ? "" : location.pathname.slice(0, at));
}

/** `?a=1&b=2` of the defined values, "" when none. */
function queryOf(query: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query))
    if (value !== undefined && value !== "") params.set(name, String(value));
  const text = params.toString();
  return text ? `?${text}` : "";
}

export function createDashboardApi(connection: Connection) {
  const base = connection.baseUrl.replace(/\/+$/, "");
  const headers = headersOf(connection);

  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    let response: Response;
    try {
      response = await connection.fetch(`${base}/__mock${path}`, {
        method,
        headers: {
          Accept: "application/json",
          ...headers,
          ...(body !== undefined && { "Content-Type": "application/json" }),
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
        cache: "no-store",
      });
    } catch {
      throw new ControlError(0, `The mock did not answer ${method} /__mock${path.split("?")[0]}.`);
    }
    const text = await response.text();
    const parsed = text ? safeJson(text) : undefined;
    if (!response.ok) {
      const error = parsed as Partial<ErrorBody> | undefined;
      const refusal = new ControlError(
        response.status,
        error?.message ?? `${method} /__mock${path.split("?")[0]} answered ${response.status}.`,
        error?.validationErrors ?? {},
      );
      if (response.status === 401) connection.onUnauthorized?.(refusal.message);
      throw refusal;
    }
    return parsed as T;
  }

  const id = encodeURIComponent;
  return {
    baseUrl: base,
    /** The URL and headers of the event stream, for connectLive. */
    events: (workspaceId?: string) => ({ url: `${base}/__mock/events${queryOf({ workspaceId })}`, headers }),
    requests: (filter: RequestFilter, limit?: number) =>
      call<JournalEntry[]>("GET", `/requests${queryOf({ ...filter, limit })}`),
    request: (requestId: string) => call<RequestDetail>("GET", `/requests/${id(requestId)}`),
    deliveries: () => call<WebhookDelivery[]>("GET", "/webhook-deliveries"),
    redeliver: (deliveryId: string) => call<WebhookDelivery>("POST", `/webhook-deliveries/${id(deliveryId)}/redeliver`),
    operations: () => call<OperationInfo[]>("GET", "/operations"),
    faults: () => call<FaultRule[]>("GET", "/faults"),
    createFault: (input: FaultRuleInput) => call<FaultRule>("POST", "/faults", input),
    deleteFault: (faultId: string) => call<void>("DELETE", `/faults/${id(faultId)}`),
    clock: (workspaceId?: string) => call<ClockState>("GET", `/clock${queryOf({ workspaceId })}`),
    advance: (seconds: number, workspaceId?: string) =>
      call<ClockState>("POST", "/clock/advance", { seconds, ...(workspaceId && { workspaceId }) }),
    workspaces: () => call<WorkspaceInfo[]>("GET", "/workspaces"),
    createWorkspace: (body: { seed?: number; empty?: boolean; readOnly?: boolean; scenario?: "every-variant" }) =>
      call<WorkspaceCreated>("POST", "/workspaces", body),
    resetWorkspace: (workspaceId: string) => call<WorkspaceInfo>("POST", `/workspaces/${id(workspaceId)}/reset`, {}),
    deleteWorkspace: (workspaceId: string) => call<void>("DELETE", `/workspaces/${id(workspaceId)}`),
    coverage: (workspaceId?: string) => call<Coverage>("GET", `/coverage${queryOf({ workspaceId })}`),
    drift: () => call<DriftFinding[]>("GET", "/drift"),
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

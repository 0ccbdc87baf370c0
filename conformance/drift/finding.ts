/**
 * A drift finding as the mock's upstream door serves it at `GET /__mock/drift` (../shared/DESIGN.md,
 * "The upstream door"): what a real deployment answered, or was sent, that the spec does not allow.
 * Secrets in the exchange are already redacted by the mock. `readFindings` checks an answer holds such
 * findings, so an answer of something else (another server, another version) is refused, not reported.
 */
import type { components as MockControlComponents } from "../../generated/mock-control.js";

type Served = MockControlComponents["schemas"]["DriftFinding"];

export type Where = Served["where"];

export type Level = Served["level"];

export type DriftExchange = Served["exchange"];

/**
 * The spec's DriftFinding (spec/mock-control.yaml), read leniently: a mock of another version may name
 * a rule this one does not know, or leave the exchange out.
 */
export type DriftFinding = Omit<Served, "rule" | "exchange"> & { rule: string; exchange?: DriftExchange };

const LEVELS: readonly string[] = ["documented", "assumed"];
const WHERES: readonly string[] = ["request", "response"];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Header values as strings; anything else of the map is dropped. */
function headerMap(v: unknown): Record<string, string> {
  if (!isObject(v)) return {};
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(v))
    if (typeof value === "string" || typeof value === "number") out[name.toLowerCase()] = String(value);
    else if (Array.isArray(value)) out[name.toLowerCase()] = value.map(String).join(", ");
  return out;
}

function exchangeOf(v: unknown): DriftExchange | undefined {
  if (!isObject(v) || !isObject(v.request)) return undefined;
  const { request, response } = v;
  if (typeof request.method !== "string" || typeof request.url !== "string") return undefined;
  return {
    request: {
      method: request.method.toUpperCase(),
      url: request.url,
      headers: headerMap(request.headers),
      ...("body" in request ? { body: request.body } : {}),
    },
    ...(isObject(response) && typeof response.status === "number"
      ? {
          response: {
            status: response.status,
            headers: headerMap(response.headers),
            ...("body" in response ? { body: response.body } : {}),
          },
        }
      : {}),
  };
}

/**
 * The findings of an answer of `GET /__mock/drift`, or the first reason it is not such an answer
 * (not an array; an item without a rule, a level or a side this command knows).
 */
export function readFindings(body: unknown): { findings: DriftFinding[] } | { problem: string } {
  if (!Array.isArray(body)) return { problem: "the answer is not a JSON array of findings" };
  const findings: DriftFinding[] = [];
  for (const [i, item] of body.entries()) {
    if (!isObject(item)) return { problem: `item ${i} is not an object` };
    for (const field of ["operationId", "rule", "message"] as const)
      if (typeof item[field] !== "string" || item[field] === "")
        return { problem: `item ${i} has no ${field} (a string)` };
    if (!LEVELS.includes(item.level as string))
      return { problem: `item ${i} has level ${JSON.stringify(item.level)}, not documented or assumed` };
    if (!WHERES.includes(item.where as string))
      return { problem: `item ${i} has where ${JSON.stringify(item.where)}, not request or response` };
    findings.push({
      id: typeof item.id === "string" ? item.id : String(i),
      at: typeof item.at === "string" ? item.at : "",
      operationId: item.operationId as string,
      workspaceId: typeof item.workspaceId === "string" ? item.workspaceId : null,
      rule: item.rule as string,
      level: item.level as Level,
      where: item.where as Where,
      path: typeof item.path === "string" ? item.path : "",
      message: item.message as string,
      exchange: exchangeOf(item.exchange),
    });
  }
  return { findings };
}

export interface FailOn {
  /** `documented`: only documented findings count; `assumed`: both levels. */
  level: Level;
  /** Request findings count too (by default only what the upstream answered does). */
  includeRequests: boolean;
}

/** Whether a finding counts against the run: a response finding (a request one with includeRequests) at the level. */
export function isCounted(f: Pick<DriftFinding, "level" | "where">, failOn: FailOn): boolean {
  return (f.where === "response" || failOn.includeRequests) && (failOn.level === "assumed" || f.level === "documented");
}

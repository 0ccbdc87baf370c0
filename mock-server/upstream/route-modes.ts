/**
 * Which operations the upstream door forwards and which the mock serves (`--route`): per operationId,
 * `upstream` (forwarded, the default), `mock` (served by the mock: an operation the upstream lacks, or
 * one a team wants stable), or `fallback` (forwarded, and served by the mock when the upstream is
 * unreachable, too slow or answers a gateway error). `*` sets the default.
 */
import { operationTable } from "../core/exchange-rules/operation-table.js";
export type RouteMode = "mock" | "upstream" | "fallback";

export const ROUTE_MODES: readonly RouteMode[] = ["mock", "upstream", "fallback"];

export type RouteTable = Readonly<Record<string, RouteMode>>;

export class RouteModes {
  private readonly fallbackMode: RouteMode;

  constructor(private readonly table: RouteTable = {}) {
    this.fallbackMode = table["*"] ?? "upstream";
  }

  modeOf(operationId: string): RouteMode {
    return this.table[operationId] ?? this.fallbackMode;
  }

  /** The table as given, `*` included: what the start-up banner shows. */
  describe(): string {
    const entries = Object.entries(this.table).filter(([op]) => op !== "*");
    if (entries.length === 0) return `everything ${this.fallbackMode}`;
    return `${entries.map(([op, mode]) => `${op}=${mode}`).join(", ")}; everything else ${this.fallbackMode}`;
  }
}

/**
 * A route table from `OP=MODE,...` (the command line) or from the JSON of a route file
 * (`{ "<operationId>": "<mode>", "*": "<mode>" }`), against the operations of `document` (the spec
 * the mock serves). Throws one line naming what is wrong: an operation the spec does not have, a mode
 * that is none of the three.
 */
export function parseRouteTable(source: string | object, document: object): RouteTable {
  const operations = operationTable(document);
  const entries: [string, unknown][] =
    typeof source === "string"
      ? source
          .split(",")
          .map((pair) => pair.trim())
          .filter((pair) => pair.length > 0)
          .map((pair) => {
            const at = pair.indexOf("=");
            if (at <= 0) throw new Error(`--route entries are OP=MODE, got "${pair}"`);
            return [pair.slice(0, at).trim(), pair.slice(at + 1).trim()];
          })
      : source !== null && !Array.isArray(source)
        ? Object.entries(source)
        : [];
  if (typeof source !== "string" && (source === null || Array.isArray(source)))
    throw new Error('a --route file holds a JSON object: { "<operationId>": "mock" | "upstream" | "fallback" }');
  const table: Record<string, RouteMode> = {};
  for (const [operationId, mode] of entries) {
    if (operationId !== "*" && !operations.has(operationId))
      throw new Error(`--route names ${operationId}, which is not an operation of the spec`);
    if (!ROUTE_MODES.includes(mode as RouteMode))
      throw new Error(`--route ${operationId}=${String(mode)}: the mode must be mock, upstream or fallback`);
    table[operationId] = mode as RouteMode;
  }
  return table;
}

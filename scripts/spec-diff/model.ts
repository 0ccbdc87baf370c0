/**
 * What spec:diff reports, and the one rule every classification goes through.
 * A change either lets fewer values through (narrows), more (widens), or a different set (both).
 * Whether that breaks a client depends on who writes the value: the client (request) or the server
 * (response). Keeping that rule in one place is what makes request and response agree.
 */

export type Direction = "request" | "response";
export type Severity = "breaking" | "non-breaking";
export type Effect = "narrows" | "widens" | "both" | "neutral";

export interface Change {
  severity: Severity;
  /** Where a client meets the change, e.g. `GET /v1/calls 200 response: data[].campaign.scheduledDate`. */
  where: string;
  message: string;
  /** The component the changed node is defined in, e.g. `components.schemas.Campaign.properties.scheduledDate`. */
  origin?: string;
}

/** Documentation-only edits (descriptions, examples, x-assumption...), counted per operation or component. */
export interface DocSummary {
  owner: string;
  count: number;
  keys: string[];
}

export interface DiffResult {
  changes: Change[];
  documentation: DocSummary[];
}

/** Request: the server must accept what clients send, so narrowing breaks. Response: clients must understand what comes back, so widening breaks. */
export function severityOf(direction: Direction, effect: Effect): Severity {
  if (effect === "both") return "breaking";
  if (effect === "narrows") return direction === "request" ? "breaking" : "non-breaking";
  if (effect === "widens") return direction === "response" ? "breaking" : "non-breaking";
  return "non-breaking";
}

/** Sink the comparers write to: location prefix, direction and origin travel with it. */
export interface Sink {
  direction: Direction;
  add(where: string, effect: Effect, message: string, origin?: string): void;
  /** A change whose severity is decided by the caller (removed operation, security...). */
  push(change: Change): void;
}

export function makeSink(changes: Change[], direction: Direction): Sink {
  return {
    direction,
    add(where, effect, message, origin) {
      changes.push({ severity: severityOf(direction, effect), where, message, ...(origin ? { origin } : {}) });
    },
    push(change) {
      changes.push(change);
    },
  };
}

/**
 * A named member (object property, parameter, header) appeared, vanished or changed requiredness.
 * Both directions treat a removed member as breaking: a request field the server no longer reads is
 * silently dropped (or rejected when additionalProperties is false); a response field clients read is gone.
 */
export function memberChange(
  sink: Sink,
  where: string,
  kind: string,
  base: { required: boolean } | undefined,
  head: { required: boolean } | undefined,
  origin?: string,
  closed = false,
): void {
  const request = sink.direction === "request";
  if (base && !head) {
    const why = request
      ? closed
        ? " (additionalProperties is false: clients sending it are now rejected)"
        : " (clients sending it are ignored)"
      : "";
    sink.push({ severity: "breaking", where, message: `${kind} removed${why}`, ...(origin ? { origin } : {}) });
  } else if (!base && head) {
    if (request)
      sink.add(
        where,
        head.required ? "narrows" : "neutral",
        head.required ? `new required ${kind}` : `optional ${kind} added`,
        origin,
      );
    else sink.add(where, "neutral", `${kind} added`, origin);
  } else if (base && head && base.required !== head.required) {
    // Request: newly required narrows what clients may send. Response: no longer required means it may be absent.
    const effect: Effect = head.required ? "narrows" : "widens";
    sink.add(
      where,
      effect,
      head.required ? `${kind} became required` : `${kind} no longer required${request ? "" : " (may now be absent)"}`,
      origin,
    );
  }
}

/** Human form of a JSON value in a message. */
export function show(value: unknown): string {
  return typeof value === "string" ? `'${value}'` : JSON.stringify(value);
}

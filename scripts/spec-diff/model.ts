/**
 * What spec:diff reports, and the one rule every classification goes through.
 * A change either lets fewer values through (narrows), more (widens), or a different set (both).
 * Whether that breaks a client depends on who writes the value: the client (request) or the server
 * (response). Keeping that rule in one place is what makes request and response agree.
 * Each change also says where it sits as data (`location`, set by the sink the comparers write to), so
 * that spec:diff --traffic can find the recorded exchanges it meets without parsing `where`.
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
  /** What the change does to the values allowed there (changes to a schema node's keywords). */
  effect?: Effect;
  /** A named member (field, parameter, header, body) that vanished, appeared or changed requiredness. */
  member?: Member;
  /** `where` as data, for tools that match changes against recorded traffic (spec:diff --traffic). */
  location?: Location;
}

export type Member = "removed" | "added" | "required" | "optional";

/**
 * Which part of an HTTP exchange a change is about. `side` is the HTTP message (a webhook's payload is
 * a request even though the client receives it); `field` is the schema path below a parameter, header
 * or media type, spelt as in `where` (`data[].status`, `oneOf[ApiKeyAuthCreate].apiKey`, `variables{}`).
 */
export interface Location {
  /** compare.ts's key: `GET /v1/calls/{}` (path parameter names dropped) or `webhook NAME POST`. */
  operation?: string;
  part:
    | "operation"
    | "security"
    | "scheme"
    | "parameter"
    | "serialization"
    | "request-body"
    | "media-type"
    | "schema"
    | "status"
    | "header";
  side?: "request" | "response";
  /** The response key as written in the spec: `200`, `4XX`, `default`. */
  status?: string;
  /** A changed success status: the codes no longer documented. */
  statuses?: string[];
  mediaType?: string;
  /** `in` and name; a path parameter by its position in the template (`path#1`), as compare.ts keys them. */
  parameter?: { in: string; name: string; position?: number };
  header?: string;
  scheme?: string;
  field?: string;
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
  add(where: string, effect: Effect, message: string, origin?: string, member?: Member): void;
  /** A change whose severity is decided by the caller (removed operation, security...). */
  push(change: Change): void;
  /**
   * The same sink, attaching `location` to what it is given; `field` is read off each `where` as the
   * part after `prefix: ` (the comparers spell a schema path that way), "" for `prefix` itself.
   */
  at(prefix: string, location: Location): Sink;
}

export function makeSink(
  changes: Change[],
  direction: Direction,
  scope?: { prefix: string; location: Location },
): Sink {
  const locate = (where: string): { location?: Location } => {
    if (!scope) return {};
    const { prefix, location } = scope;
    const field = where === prefix ? "" : where.startsWith(`${prefix}: `) ? where.slice(prefix.length + 2) : undefined;
    return { location: field === undefined ? location : { ...location, field } };
  };
  return {
    direction,
    add(where, effect, message, origin, member) {
      changes.push({
        severity: severityOf(direction, effect),
        where,
        message,
        ...(origin ? { origin } : {}),
        effect,
        ...(member ? { member } : {}),
        ...locate(where),
      });
    },
    push(change) {
      changes.push(change.location ? change : { ...change, ...locate(change.where) });
    },
    at(prefix, location) {
      return makeSink(changes, direction, { prefix, location });
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
    sink.push({
      severity: "breaking",
      where,
      message: `${kind} removed${why}`,
      ...(origin ? { origin } : {}),
      member: "removed",
    });
  } else if (!base && head) {
    if (request)
      sink.add(
        where,
        head.required ? "narrows" : "neutral",
        head.required ? `new required ${kind}` : `optional ${kind} added`,
        origin,
        head.required ? "required" : "added",
      );
    else sink.add(where, "neutral", `${kind} added`, origin, "added");
  } else if (base && head && base.required !== head.required) {
    // Request: newly required narrows what clients may send. Response: no longer required means it may be absent.
    const effect: Effect = head.required ? "narrows" : "widens";
    sink.add(
      where,
      effect,
      head.required ? `${kind} became required` : `${kind} no longer required${request ? "" : " (may now be absent)"}`,
      origin,
      head.required ? "required" : "optional",
    );
  }
}

/** Human form of a JSON value in a message. */
export function show(value: unknown): string {
  return typeof value === "string" ? `'${value}'` : JSON.stringify(value);
}

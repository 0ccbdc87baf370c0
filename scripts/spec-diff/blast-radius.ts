/**
 * The blast radius of a spec change: for each breaking change, the recorded exchanges it breaks,
 * decided from what each exchange holds, per kind of change:
 * - an operation removed, its security or a scheme it uses changed: every exchange of it;
 * - a status code removed (or the success code changed): the exchanges answered with it;
 * - a media type removed: the exchanges that sent it (request) or were answered with it (response);
 * - something removed (field, parameter, header, body): the exchanges that carry it;
 * - something made required: the requests that lack it (a field: inside an object that is there);
 * - a request value narrowed (enum, type, bound, pattern, variant...): the requests carrying a value
 *   the base spec accepted and the head spec refuses, on that very aspect;
 * - a response value widened (enum value added, nullable, type, variant added) or a response field
 *   that may now be absent: the answers holding that field, since their client reads it.
 * What a file did not record (the journal keeps no headers or bodies; browsers may drop bodies) leaves
 * the exchange undecided, never hit. Webhook changes meet no recorded traffic: deliveries are not in it.
 */
import type { Operation } from "./compare.js";
import type { Change, Location } from "./model.js";
import type { Matched, TrafficMatch } from "./traffic-match.js";
import type { Body, Exchange } from "../../conformance/recorded/traffic-file.js";
import {
  answeredWith,
  bare,
  Context,
  mediaFits,
  mimeOf,
  obj,
  parameter,
  requestSchema,
  responseSchema,
  type Verdict,
} from "./traffic-fields.js";
import { resolve, type Obj } from "./view.js";

export interface Hit {
  exchange: Exchange;
  operationId?: string;
  /** Where in the exchange: `query status`, `response body /data/0/status`, `status 404`. */
  pointer?: string;
  /** The offending value when there is one, as recorded: the report redacts it. */
  value?: { of: unknown; name?: string };
}

export interface Radius {
  hits: Hit[];
  /** Exchanges of the operation whose file did not record what the change is about. */
  undecided: Exchange[];
}

export function blastRadius(base: Obj, head: Obj, changes: Change[], traffic: TrafficMatch): Map<Change, Radius> {
  const ctx = new Context(base, head);
  const byOperation = new Map<string, Matched[]>();
  for (const m of traffic.matched) {
    const list = byOperation.get(m.key);
    if (list) list.push(m);
    else byOperation.set(m.key, [m]);
  }
  const out = new Map<Change, Radius>();
  for (const change of changes) {
    if (change.severity !== "breaking") continue;
    const radius: Radius = { hits: [], undecided: [] };
    out.set(change, radius);
    const loc = change.location;
    if (!loc || loc.operation?.startsWith("webhook ")) continue;
    const candidates =
      loc.part === "scheme"
        ? traffic.matched.filter((m) => schemesOf(base, m.operation).includes(loc.scheme ?? ""))
        : (byOperation.get(loc.operation ?? "") ?? []);
    for (const m of candidates) {
      const verdict = decide(ctx, change, loc, m);
      if (verdict === "undecided") radius.undecided.push(m.exchange);
      else if (verdict !== "miss")
        radius.hits.push({ exchange: m.exchange, operationId: opId(m.operation), ...verdict });
    }
  }
  return out;
}

const opId = (o: Operation): string | undefined =>
  typeof o.op.operationId === "string" ? o.op.operationId : undefined;

function schemesOf(doc: Obj, o: Operation): string[] {
  const requirements = Array.isArray(o.op.security) ? o.op.security : Array.isArray(doc.security) ? doc.security : [];
  return requirements.flatMap((r) => Object.keys(obj(r)));
}

function decide(ctx: Context, change: Change, loc: Location, m: Matched): Verdict {
  const ex = m.exchange;
  switch (loc.part) {
    case "operation":
    case "security":
    case "scheme":
      return {};
    case "status":
      return answeredWith(m, loc.statuses ?? [loc.status ?? ""]) ? { pointer: `status ${ex.status}` } : "miss";
    case "request-body":
      return presence(ex.requestBody, change.member, "request body");
    case "parameter":
    case "serialization":
      return parameter(ctx, change, loc, m);
    case "header": {
      if (!answeredWith(m, [loc.status ?? ""])) return "miss";
      if (!ex.responseHeaders) return "undecided";
      const value = ex.responseHeaders.get((loc.header ?? "").toLowerCase());
      return value === undefined
        ? "miss"
        : { pointer: `response header ${loc.header}`, value: { of: value, name: loc.header } };
    }
    case "media-type":
      return loc.side === "request" ? requestMedia(loc, ex) : responseMedia(ctx, loc, m);
    case "schema":
      return loc.side === "request" ? requestSchema(ctx, change, loc, m) : responseSchema(ctx, change, loc, m);
    default:
      return "miss";
  }
}

/** A request body removed breaks those that send one; one made required, those that do not. */
function presence(body: Body, member: Change["member"], what: string): Verdict {
  if (body.state === "unknown") return "undecided";
  const sent = body.state !== "none";
  if (member === "removed") return sent ? { pointer: what } : "miss";
  if (member === "required") return sent ? "miss" : { pointer: `${what} (none sent)` };
  return "miss";
}

function requestMedia(loc: Location, ex: Exchange): Verdict {
  if (ex.requestBody.state === "none") return "miss";
  const type = bare(ex.requestHeaders?.get("content-type")) || bare(mimeOf(ex.requestBody));
  if (!type) return "undecided";
  return mediaFits(type, loc.mediaType ?? "") ? { pointer: "request Content-Type", value: { of: type } } : "miss";
}

function responseMedia(ctx: Context, loc: Location, m: Matched): Verdict {
  if (!answeredWith(m, [loc.status ?? ""]) || m.exchange.responseBody.state === "none") return "miss";
  const ex = m.exchange;
  const type = bare(ex.responseHeaders?.get("content-type")) || bare(mimeOf(ex.responseBody));
  if (type)
    return mediaFits(type, loc.mediaType ?? "") ? { pointer: "response Content-Type", value: { of: type } } : "miss";
  // No header recorded (the journal): an answer with that status had that type when it is the only one documented.
  const documented = Object.keys(
    obj(obj(resolve(ctx.base, obj(m.operation.op.responses)[loc.status ?? ""]).node).content),
  );
  return documented.length === 1 && documented[0] === loc.mediaType ? { pointer: `status ${ex.status}` } : "undecided";
}

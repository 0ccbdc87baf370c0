/**
 * Compares two bundled OpenAPI 3.1 documents operation by operation: operations added or removed,
 * parameters, request bodies, responses (status codes, headers, media types, schemas) and security.
 * Webhooks are compared too, with the directions swapped: the platform sends the webhook request
 * and the client answers it. Schemas go to schema-diff.ts, documentation edits to docs-diff.ts.
 * Every change also carries its `location` as data (operation key, part, status, media type, field),
 * which spec:diff --traffic matches against recorded exchanges.
 */
import { diffDocumentation } from "./docs-diff.js";
import { makeSink, memberChange, type Change, type DiffResult, type Location, type Sink } from "./model.js";
import { diffSchema } from "./schema-diff.js";
import { compareSchemes, security } from "./security.js";
import { isObj, resolve, type Obj } from "./view.js";

export const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

export interface Operation {
  /** Path parameter names dropped: `GET /v1/calls/{}`; `webhook NAME POST`. */
  key: string;
  label: string;
  template: string;
  pathItem: Obj;
  op: Obj;
  webhook: boolean;
}

interface Side {
  doc: Obj;
  o: Operation;
}

const obj = (value: unknown): Obj => (isObj(value) ? value : {});

/** Operations by a key that ignores path parameter names: `/calls/{id}` and `/calls/{callId}` are one path to a client. */
export function operations(doc: Obj): Map<string, Operation> {
  const found = new Map<string, Operation>();
  for (const [group, webhook] of [
    ["paths", false],
    ["webhooks", true],
  ] as const) {
    for (const [name, raw] of Object.entries(obj(doc[group]))) {
      const pathItem = obj(resolve(doc, raw).node);
      for (const method of METHODS) {
        if (!isObj(pathItem[method])) continue;
        const verb = method.toUpperCase();
        const key = webhook ? `webhook ${name} ${verb}` : `${verb} ${name.replace(/\{[^}]*\}/g, "{}")}`;
        const label = webhook ? `webhook ${name} (${verb})` : `${verb} ${name}`;
        found.set(key, { key, label, template: name, pathItem, op: pathItem[method] as Obj, webhook });
      }
    }
  }
  return found;
}

export function compareDocuments(base: Obj, head: Obj): DiffResult {
  const changes: Change[] = [];
  const before = operations(base);
  const after = operations(head);
  for (const key of new Set([...before.keys(), ...after.keys()])) {
    const b = before.get(key);
    const h = after.get(key);
    const what = (h ?? b)!.webhook ? "webhook" : "operation";
    const location: Location = { operation: key, part: "operation" };
    if (b && !h) changes.push({ severity: "breaking", where: b.label, message: `${what} removed`, location });
    else if (!b && h) changes.push({ severity: "non-breaking", where: h.label, message: `${what} added`, location });
    else compareOperation(changes, { doc: base, o: b! }, { doc: head, o: h! });
  }
  compareSchemes(changes, base, head);
  return { changes, documentation: diffDocumentation(base, head) };
}

function compareOperation(changes: Change[], b: Side, h: Side): void {
  // What the client sends is a request; in a webhook the client is the receiver, so it is swapped.
  const send = makeSink(changes, h.o.webhook ? "response" : "request");
  const receive = makeSink(changes, h.o.webhook ? "request" : "response");
  const label = h.o.label;
  const operation = h.o.key;
  compareParameters(send, b, h);
  const bBody = resolve(b.doc, b.o.op.requestBody);
  const hBody = resolve(h.doc, h.o.op.requestBody);
  const where = `${label} request body`;
  const present = (r: { node: unknown }) => (isObj(r.node) ? { required: r.node.required === true } : undefined);
  const body: Location = { operation, part: "request-body", side: "request" };
  memberChange(
    send.at(where, body),
    where,
    "request body",
    present(bBody),
    present(hBody),
    hBody.origin ?? bBody.origin,
  );
  if (isObj(bBody.node) && isObj(hBody.node))
    compareContent(send, where, body, b, h, bBody.node.content, hBody.node.content);
  compareResponses(receive, b, h);
  const bSec = security(b.doc, b.o.op);
  const hSec = security(h.doc, h.o.op);
  if (bSec !== hSec)
    changes.push({
      severity: "breaking",
      where: label,
      message: `security changed: ${bSec} -> ${hSec}`,
      location: { operation, part: "security" },
    });
  if (!b.o.op.deprecated && h.o.op.deprecated)
    changes.push({
      severity: "non-breaking",
      where: label,
      message: "operation deprecated",
      location: { operation, part: "operation" },
    });
}

export interface Param {
  param: Obj;
  origin?: string;
  label: string;
  /** Path parameters: the position in the template (their names do not reach the client). */
  position?: number;
}

/** Path-level then operation-level parameters, keyed by location; path parameters by position in the template. */
export function parameters(doc: Obj, o: Operation): Map<string, Param> {
  const found = new Map<string, Param>();
  const names = [...o.template.matchAll(/\{([^}]*)\}/g)].map((m) => m[1]);
  for (const raw of [...[o.pathItem.parameters].flat(), ...[o.op.parameters].flat()]) {
    const { node, origin } = resolve(doc, raw);
    if (!isObj(node) || typeof node.name !== "string") continue;
    const place = String(node.in);
    const key =
      place === "path"
        ? `path#${names.indexOf(node.name)}`
        : `${place}:${place === "header" ? node.name.toLowerCase() : node.name}`;
    const position = place === "path" ? names.indexOf(node.name) : undefined;
    found.set(key, { param: node, origin, label: `${place} parameter ${node.name}`, position });
  }
  return found;
}

function compareParameters(sink: Sink, b: Side, h: Side): void {
  const before = parameters(b.doc, b.o);
  const after = parameters(h.doc, h.o);
  for (const key of new Set([...before.keys(), ...after.keys()])) {
    const bp = before.get(key);
    const hp = after.get(key);
    const p = (hp ?? bp)!;
    const where = `${h.o.label} ${p.label}`;
    const origin = hp?.origin ?? bp?.origin;
    const parameter = {
      in: String(p.param.in),
      name: String(p.param.name),
      ...(p.position !== undefined ? { position: p.position } : {}),
    };
    const at = sink.at(where, { operation: h.o.key, part: "parameter", side: "request", parameter });
    const req = (p: Param | undefined) => p && { required: p.param.required === true };
    memberChange(at, where, "parameter", req(bp), req(hp), origin);
    if (!bp || !hp) continue;
    const style = sink.at(where, { operation: h.o.key, part: "serialization", side: "request", parameter });
    for (const k of ["style", "explode", "allowEmptyValue", "allowReserved"]) {
      if (bp.param[k] !== hp.param[k])
        style.add(
          where,
          "both",
          `${k} ${String(bp.param[k] ?? "default")} -> ${String(hp.param[k] ?? "default")}`,
          origin,
        );
    }
    const slot = (p: Param) => ({ schema: p.param.schema, origin: p.origin && `${p.origin}.schema` });
    diffSchema({ base: b.doc, head: h.doc, sink: at, stack: new Set() }, where, "", slot(bp), slot(hp));
  }
}

/** Media types: one removed breaks in either direction (a client sending or asking for it); one added does not. */
function compareContent(
  sink: Sink,
  where: string,
  location: Location,
  b: Side,
  h: Side,
  bContent: unknown,
  hContent: unknown,
): void {
  const before = obj(bContent);
  const after = obj(hContent);
  for (const type of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const loc = type === "application/json" ? where : `${where} (${type})`;
    const media = sink.at(loc, { ...location, part: "media-type", mediaType: type });
    if (!(type in after))
      media.push({ severity: "breaking", where: loc, message: `media type ${type} removed`, member: "removed" });
    else if (!(type in before))
      media.push({ severity: "non-breaking", where: loc, message: `media type ${type} added`, member: "added" });
    else {
      const slot = (doc: Obj, media: unknown) => {
        const { node, origin } = resolve(doc, media);
        return { schema: obj(node).schema, origin: origin && `${origin}.schema` };
      };
      diffSchema(
        {
          base: b.doc,
          head: h.doc,
          sink: sink.at(loc, { ...location, part: "schema", mediaType: type }),
          stack: new Set(),
        },
        loc,
        "",
        slot(b.doc, before[type]),
        slot(h.doc, after[type]),
      );
    }
  }
}

const SUCCESS = /^2([0-9]{2}|XX)$/i;

function compareResponses(sink: Sink, b: Side, h: Side): void {
  const before = obj(b.o.op.responses);
  const after = obj(h.o.op.responses);
  const label = h.o.label;
  const response: Location = { operation: h.o.key, part: "status", side: "response" };
  let removed = Object.keys(before).filter((c) => !(c in after));
  let added = Object.keys(after).filter((c) => !(c in before));
  const lostSuccess = removed.filter((c) => SUCCESS.test(c));
  const newSuccess = added.filter((c) => SUCCESS.test(c));
  if (lostSuccess.length && newSuccess.length) {
    sink.push({
      severity: "breaking",
      where: label,
      message: `success status ${lostSuccess.join("/")} -> ${newSuccess.join("/")}`,
      location: { ...response, statuses: lostSuccess },
    });
    removed = removed.filter((c) => !lostSuccess.includes(c));
    added = added.filter((c) => !newSuccess.includes(c));
  }
  for (const code of removed)
    sink.push({
      severity: "breaking",
      where: `${label} ${code} response`,
      message: "status code removed",
      location: { ...response, status: code },
    });
  for (const code of added)
    sink.push({
      severity: "non-breaking",
      where: `${label} ${code} response`,
      message: "status code added",
      location: { ...response, status: code },
    });
  for (const code of Object.keys(before).filter((c) => c in after)) {
    const where = `${label} ${code} response`;
    const br = resolve(b.doc, before[code]);
    const hr = resolve(h.doc, after[code]);
    const bHeaders = obj(obj(br.node).headers);
    const hHeaders = obj(obj(hr.node).headers);
    const lower = (o: Obj) => new Map(Object.entries(o).map(([k, v]) => [k.toLowerCase(), { raw: v, name: k }]));
    const bh = lower(bHeaders);
    const hh = lower(hHeaders);
    for (const name of new Set([...bh.keys(), ...hh.keys()])) {
      const x = bh.get(name) && resolve(b.doc, bh.get(name)!.raw);
      const y = hh.get(name) && resolve(h.doc, hh.get(name)!.raw);
      const header = (hh.get(name) ?? bh.get(name))!.name;
      const loc = `${where} header ${header}`;
      const at = sink.at(loc, { ...response, part: "header", status: code, header });
      const req = (r: typeof x) => r && { required: obj(r.node).required === true };
      memberChange(at, loc, "header", req(x), req(y), y?.origin ?? x?.origin);
      if (x && y)
        diffSchema(
          { base: b.doc, head: h.doc, sink: at, stack: new Set() },
          loc,
          "",
          { schema: obj(x.node).schema },
          { schema: obj(y.node).schema },
        );
    }
    compareContent(sink, where, { ...response, status: code }, b, h, obj(br.node).content, obj(hr.node).content);
  }
}

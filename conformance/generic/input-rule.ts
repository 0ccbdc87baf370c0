/**
 * `<op>.invalid-input`: every required parameter and body field left out, and values that break one
 * documented restriction each (type, bounds, enum, format), answer a documented 4xx. Each case starts
 * from the operation's valid request and breaks one thing; a case is sent only when the document, at
 * level documented, refuses it (what only an x-assumption forbids is never held against a target).
 */
import { leveledValidators } from "../../mock-server/core/exchange-rules/leveled-validators.js";
import type { OperationInfo } from "../../mock-server/core/exchange-rules/operation-table.js";
import type { SuiteDocument } from "../lib/document.js";
import type { RequestSpec } from "../lib/http.js";
import type { RuleSpec } from "../lib/rule.js";
import { roleOf } from "./collections.js";
import { documentsClientError, expectClientError } from "./expect.js";
import { type Prepared, prepare } from "./prepare.js";
import { idOfAnswer, trackCreated } from "./records.js";
import { documentOf } from "./run-context.js";
import { encodeBody, isJsonMedia, parametersOf, wireText } from "./requests.js";
import { propertiesOf, schemaAt } from "./schema-walk.js";
import { breakages, passes } from "./values.js";
import { recordWrite } from "./writes.js";

/** At most this many requests per operation: the first of each kind come first. */
const MAX_CASES = 16;
/** Breakages tried per parameter or field. */
const PER_FIELD = 2;

interface Case {
  why: string;
  request: RequestSpec;
}

function bodyObject(op: OperationInfo, body: unknown): Record<string, unknown> | undefined {
  const fielded = isJsonMedia(op.requestContentType) || /form/i.test(op.requestContentType ?? "");
  return fielded && body && typeof body === "object" && !Array.isArray(body)
    ? (body as Record<string, unknown>)
    : undefined;
}

/** The cases of `op`, made from its valid request: missing ones first, then one breakage per field, then more. */
export function inputCases(document: SuiteDocument, op: OperationInfo, valid: Prepared): Case[] {
  const missing: Case[] = [];
  const broken: Case[][] = [];
  const base = valid.request;
  const params = parametersOf(document, op);
  const validate = leveledValidators(document.doc).parametersValidator(op, "documented");
  const query = (base.query ?? {}) as Record<string, string>;
  for (const p of params.filter((p) => p.required && p.in === "query")) {
    const { [p.name]: _left, ...rest } = query;
    missing.push({ why: `required query parameter ${p.name} left out`, request: { ...base, query: rest } });
  }
  for (const p of params.filter((p) => p.required && p.in === "header")) {
    const { [p.name]: _left, ...rest } = base.headers ?? {};
    missing.push({ why: `required header ${p.name} left out`, request: { ...base, headers: rest } });
  }
  for (const p of params.filter((p) => p.in === "query" || p.in === "path")) {
    const own: Case[] = [];
    for (const b of breakages(p.schema, true)) {
      const text = wireText(b.value);
      const candidate = {
        path: { ...valid.path, ...(p.in === "path" ? { [p.name]: text } : {}) },
        query: { ...query, ...(p.in === "query" ? { [p.name]: text } : {}) },
      };
      if (validate(structuredClone(candidate))) continue;
      const request =
        p.in === "query"
          ? { ...base, query: candidate.query }
          : {
              ...base,
              path: base.path.replace(`/${encodeURIComponent(valid.path[p.name])}`, `/${encodeURIComponent(text)}`),
            };
      own.push({ why: `${p.in} parameter ${p.name} ${b.why} (${text})`, request });
      if (own.length >= PER_FIELD) break;
    }
    broken.push(own);
  }
  const pointer = op.requestSchemaPointer;
  if (pointer && op.requestBodyRequired)
    missing.push({
      why: "the required body left out",
      request: { ...base, body: undefined, rawBody: undefined, headers: withoutContentType(base.headers) },
    });
  const body = bodyObject(op, valid.body);
  if (pointer && body) {
    const properties = propertiesOf(document.doc, pointer);
    for (const [name, property] of Object.entries(properties)) {
      if (property.required && name in body) {
        const { [name]: _left, ...rest } = body;
        if (!passes(document.doc, pointer, "documented", rest))
          missing.push({
            why: `required body field ${name} left out`,
            request: { ...base, ...encodeBody(op, rest), headers: base.headers },
          });
      }
      if (property.schema.readOnly === true) continue;
      const own: Case[] = [];
      for (const b of breakages(property.schema, false)) {
        const changed = { ...body, [name]: b.value };
        if (passes(document.doc, pointer, "documented", changed)) continue;
        own.push({
          why: `body field ${name} ${b.why}`,
          request: { ...base, ...encodeBody(op, changed), headers: base.headers },
        });
        if (own.length >= PER_FIELD) break;
      }
      broken.push(own);
    }
  }
  // Round robin over the fields, so a cut keeps one case of each before a second of any.
  const spread: Case[] = [];
  for (let i = 0; i < PER_FIELD; i++) for (const own of broken) if (own[i]) spread.push(own[i]);
  return [...missing, ...spread].slice(0, MAX_CASES);
}

function withoutContentType(headers: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(headers ?? {}).filter(([k]) => k.toLowerCase() !== "content-type"));
}

/**
 * Whether the document, at level documented (restrictions resting on an x-assumption dropped), gives
 * `op` anything to leave out or break: else the operation has no such rule rather than one always skipped.
 */
function breakable(document: SuiteDocument, op: OperationInfo): boolean {
  const relaxed = leveledValidators(document.doc).leveledDocument("documented");
  const params = parametersOf(document, op);
  if (params.some((p) => p.required && p.in !== "path")) return true;
  const breaks = (pointer: string, wire: boolean) =>
    breakages(schemaAt(relaxed, pointer)?.schema ?? {}, wire).length > 0;
  if (params.some((p) => (p.in === "query" || p.in === "path") && breaks(p.schemaPointer, true))) return true;
  if (op.requestSchemaPointer && op.requestBodyRequired) return true;
  return (
    op.requestSchemaPointer !== undefined && Object.keys(propertiesOf(relaxed, op.requestSchemaPointer)).length > 0
  );
}

export function invalidInputRule(document: SuiteDocument, op: OperationInfo): RuleSpec | undefined {
  if (!documentsClientError(op) || !breakable(document, op)) return undefined;
  return {
    id: `${op.operationId}.invalid-input`,
    operationId: op.operationId,
    level: "documented",
    readOnly: op.method === "GET",
    description: `${op.method} ${op.path}: each required parameter or body field left out, and each value that breaks its documented type, bounds, enum or format, answers a documented 4xx (generic rule).`,
    run: async (t) => {
      const valid = await prepare(t, op, { salt: 31 });
      if ("problem" in valid) return t.skip(valid.problem);
      const cases = inputCases(documentOf(t), op, valid);
      if (cases.length === 0) return t.skip("the document's restrictions leave nothing to break at level documented");
      const role = roleOf(documentOf(t), op.operationId);
      for (const c of cases) {
        const exchange = await t.call(op.operationId, c.request);
        // A create that wrongly accepts the body made a record: it is tracked and deleted like any other.
        if (role?.role === "create" && exchange.status >= 200 && exchange.status < 300) {
          const id = idOfAnswer(role.collection, exchange);
          if (id !== undefined) trackCreated(t, role.collection, id, valid.path, true);
        } else recordWrite(t, op, exchange, valid.own !== undefined);
        expectClientError(t, exchange, op, c.why);
      }
    },
  };
}

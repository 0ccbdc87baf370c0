/**
 * Every fuzz case: per operation of the spec, a valid request, a request the spec refuses, or a
 * hostile mutation of either (conformance/fuzz/requests.ts makes the base; mutations.ts and
 * multipart.ts the hostility); plus requests aimed at no operation and raw bytes.
 */
import fc from "fast-check";
import { caseArbitrary, bodySchemaOf } from "../../conformance/fuzz/requests.js";
import type { Known } from "../../conformance/fuzz/arbitraries.js";
import { operations, deref, type JsonObject, type OperationInfo } from "../../conformance/lib/spec.js";
import { encodeAny, toWire, type FuzzCase } from "./case.js";
import { oddString } from "./hostile.js";
import { garbageForm, validForm } from "./multipart.js";
import {
  bodyMutations,
  headerMutations,
  idMutations,
  methodMutation,
  pathShapeMutation,
  queryMutations,
  strayBody,
  type BodyFields,
  type Mutation,
} from "./mutations.js";
import { rawCase } from "./raw.js";

export interface CaseSources {
  known: Known;
  validBodies: Record<string, fc.Arbitrary<unknown>>;
}

function baseCase(op: OperationInfo, sources: CaseSources): fc.Arbitrary<FuzzCase> {
  if (op.requestContentType === "multipart/form-data") {
    return fc.oneof(validForm, garbageForm).map((form) => ({
      operationId: op.operationId,
      kind: form.expect === "accept" ? "valid" : "form-garbage",
      expect: form.expect,
      why: form.why,
      wire: {
        method: op.method,
        target: op.path,
        headers: [
          ["Accept", "application/json"],
          ["Content-Type", form.contentType],
        ],
        body: form.body,
        key: "valid",
      },
    }));
  }
  return caseArbitrary(op, { mayCreate: true, known: sources.known, validBodies: sources.validBodies }).map((c) => ({
    operationId: op.operationId,
    kind: c.valid ? "valid" : "invalid",
    expect: c.valid ? "accept" : "reject",
    why: c.why,
    wire: toWire(c.request),
  }));
}

function bodyFields(op: OperationInfo): BodyFields {
  const schema = deref(bodySchemaOf(op)) as JsonObject | undefined;
  const variants = Array.isArray(schema?.oneOf)
    ? schema.oneOf.map((v) => deref(v) as JsonObject)
    : schema
      ? [schema]
      : [];
  const properties = variants.flatMap((v) => Object.entries((v.properties as JsonObject | undefined) ?? {}));
  const all = [...new Set(properties.map(([name]) => name))];
  const containers = [
    ...new Set(
      properties
        .filter(([, p]) => ["object", "array"].includes((deref(p) as JsonObject).type as string))
        .map(([name]) => name),
    ),
  ];
  return { all: all.length > 0 ? all : ["name"], containers };
}

function operationCase(op: OperationInfo, sources: CaseSources): fc.Arbitrary<FuzzCase> {
  const fields = bodyFields(op);
  const hasJsonBody = bodySchemaOf(op) !== undefined;
  // Weights: the body is where most hostility goes; the key and header variants are few and cheap.
  const weighted: [Mutation, number][] = [
    ...(hasJsonBody
      ? bodyMutations.map((m): [Mutation, number] => [m, 4])
      : op.requestContentType
        ? []
        : [[strayBody, 2] as [Mutation, number]]),
    ...queryMutations.map((m): [Mutation, number] => [m, 2]),
    ...(op.path.includes("{") ? idMutations : []).map((m): [Mutation, number] => [m, 2]),
    [pathShapeMutation, 2],
    [methodMutation, 2],
    ...headerMutations.map((m): [Mutation, number] => [m, 1]),
  ];
  const base = baseCase(op, sources);
  // One fault at a time: mutations start from a request the spec accepts.
  const validBase = base.filter((b) => b.expect === "accept");
  const mutated = fc.oneof(
    ...weighted.map(([m, weight]) => ({ weight, arbitrary: validBase.chain((b) => m(b, fields)) })),
  );
  return fc.oneof({ arbitrary: base, weight: 2 }, { arbitrary: mutated, weight: 3 });
}

const UNKNOWN_PATHS = [
  "/",
  "/v1",
  "/v1/",
  "/v2/agents",
  "/v1/nothing",
  "/v1/agents/extra",
  "/favicon.ico",
  "/%",
  "/..%2f..%2fetc%2fpasswd",
  "/v1/agents/../calls",
  "/v1//calls",
  "/V1/AGENTS",
  "/v1/phone-numbers",
  "/v1/webhooks/x",
];

const strayCase: fc.Arbitrary<FuzzCase> = fc
  .tuple(
    fc.oneof(
      fc.constantFrom(...UNKNOWN_PATHS),
      oddString.map((s) => `/v1/${encodeAny(s)}`),
    ),
    fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH", "HEAD"),
  )
  .map(([target, method]) => ({
    operationId: null,
    kind: "no-operation",
    expect: "any",
    why: `${method} ${target}`,
    wire: { method, target, headers: [["Accept", "application/json"]], key: "valid" },
  }));

/** Every operation equally often, then stray paths and raw bytes. */
export function fuzzCases(sources: CaseSources): fc.Arbitrary<FuzzCase> {
  const perOperation = [...operations.values()].map((op) => ({ arbitrary: operationCase(op, sources), weight: 10 }));
  return fc.oneof(...perOperation, { arbitrary: strayCase, weight: 4 }, { arbitrary: rawCase, weight: 4 });
}

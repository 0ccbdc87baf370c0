/**
 * Answers from the document alone: an operation that is no collection's answers its documented
 * success response, the document's example first, else a value drawn from the schema, the same for
 * the same request of the same workspace (nothing is written to draw it), and checked against the
 * response's schema before it goes. A collection's reply goes through `replyFor`, which fits a record
 * to what the response documents.
 */
import type { Contract } from "../core/contract.js";
import { ApiError } from "../core/errors.js";
import type { Reply } from "../core/exchange.js";
import type { Operation } from "../core/operations.js";
import { documentedResponse, jsonMedia } from "./document.js";
import { recordIn } from "./plan.js";
import { sampleValid, seededSampler } from "../core/sampling/sample.js";
import { type Deref, flatten, isObjectSchema } from "../core/sampling/schema.js";
import { mediaAnswer } from "./media-answer.js";
import { dayOf, requestSeed } from "./seed.js";

/** What an answer reads of the request (a part of GenericContext). */
export interface AnswerContext {
  workspace: { seed: number; workspaceId: string; clock: { nowMs(): number } };
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
}

/** The documented examples of a response, in the document's order: named ones, the media's, the schema's. */
export function examplesOf(contract: Contract, op: Operation, status: number): unknown[] {
  const out: unknown[] = Object.values(op.responses.get(status)?.examples ?? {});
  const media = jsonMedia(documentedResponse(contract, op, status)?.response)?.media;
  if (media && "example" in media) out.push(media.example);
  const schema = media?.schema && flatten(media.schema, (node) => contract.deref(node));
  if (schema && "example" in schema) out.push(schema.example);
  if (schema && Array.isArray(schema.examples)) out.push(...schema.examples);
  return out;
}

/**
 * The reply of a status that documents no JSON body: its other media type's body (an image, a text),
 * else none; an undocumented status has none either.
 */
function withoutJson(op: Operation, status: number, ctx: AnswerContext): Reply {
  const media = op.responses.get(status)?.otherMedia;
  return media ? mediaAnswer(status, media, requestSeed(ctx, op)) : { status };
}

/** The schema answer of an operation: its success status with an example, else a drawn value. */
export function schemaAnswer(contract: Contract, op: Operation, ctx: AnswerContext): Reply {
  const status = op.successStatus;
  const info = op.responses.get(status);
  if (!info?.check) return withoutJson(op, status, ctx);
  const check = info.check;
  const example = examplesOf(contract, op, status).find((value) => check(value));
  if (example !== undefined) return { status, body: structuredClone(example) };
  const { value, ok } = sampleValid(info.schema, {
    deref: (node) => contract.deref(node),
    seed: requestSeed(ctx, op),
    refDate: dayOf(ctx.workspace.clock.nowMs()),
    check,
  });
  if (!ok) {
    const detail = info
      .errors()
      .slice(0, 3)
      .map((e) => `${e.instancePath || "/"} ${e.message}`)
      .join("; ");
    throw new ApiError(
      500,
      `The mock could not draw an answer valid against the ${status} schema of ${op.operationId}: ${detail}`,
    );
  }
  return { status, body: value };
}

/**
 * A collection's reply with `status`: no body where the status documents none, else the record as the
 * response documents it (the record itself, in its envelope, or cut to the response's fields), else
 * a value drawn from the response's schema with the record's fields where they fit.
 */
export function replyFor(
  contract: Contract,
  op: Operation,
  status: number,
  record: Record<string, unknown>,
  ctx: AnswerContext,
): Reply {
  const info = op.responses.get(status);
  if (!info?.check) return withoutJson(op, status, ctx);
  const deref: Deref = (node) => contract.deref(node);
  const check = info.check;
  const candidates: unknown[] = [record];
  const inner = recordIn(info.schema, deref);
  if (inner !== undefined && inner !== info.schema) {
    const key = Object.keys(flatten(info.schema, deref).properties ?? {})[0];
    candidates.push({ [key]: record });
  }
  if (isObjectSchema(info.schema, deref)) candidates.push(projection(record, info.schema, deref));
  for (const candidate of candidates) if (check(candidate)) return { status, body: candidate };
  const drawn = seededSampler(deref, requestSeed(ctx, op), dayOf(ctx.workspace.clock.nowMs())).value(info.schema);
  if (drawn && typeof drawn === "object" && !Array.isArray(drawn)) {
    const overlaid = { ...drawn, ...projection(record, info.schema, deref) };
    if (check(overlaid)) return { status, body: overlaid };
  }
  if (check(drawn)) return { status, body: drawn };
  // Nothing fits: the record goes, and response validation says how it drifts from the document.
  return { status, body: record };
}

/** The record's fields that the schema names. */
function projection(record: Record<string, unknown>, schema: unknown, deref: Deref): Record<string, unknown> {
  const properties = (flatten(schema, deref).properties ?? {}) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(record).filter(([key]) => key in properties));
}

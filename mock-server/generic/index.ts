/**
 * The generic layer: every operation of the served document without a hand-written handler, served
 * from the document alone. Collections where paths and methods have their shape (plan.ts,
 * records.ts), answers drawn from the schema elsewhere (answer.ts, with core/sampling/), and error bodies as
 * another document writes them (error-body.ts).
 */
export { describeGeneric, formatGenericSummary, type GenericSummary } from "./describe.js";
export { documentErrorBody, hasReferenceErrorBody } from "./error-body.js";
export { type FillContext, mergedRecord, newRecord } from "./fill.js";
export { type GenericContext, type GenericHandler, genericHandler } from "./handler.js";
export {
  type CollectionPlan,
  type Decision,
  decisionOf,
  type Plan,
  planOf,
  type RecordRule,
  type Role,
} from "./plan.js";
export { sampleValid, Sampler, seededSampler } from "../core/sampling/sample.js";

/**
 * Records handed to the control plane (a fill or a snapshot import) must have the platform's shape:
 * the /v1 operations serve stored records as they are, so a call with status "bogus" or an agent whose
 * name is a number would otherwise turn every later list into a 500 (response validation).
 */
import { schemaValidators as bundledSchemas } from "../../generated/validators.js";
import type { Contract } from "../core/contract.js";
import type { ValidationErrors } from "../core/errors.js";
import { toValidationErrors, type CompiledValidator } from "../core/validation.js";
import { collectionOptions, type CollectionName } from "./records.js";

/** The spec schema of each collection's records; the others (not served by /v1) only need an id. */
export const SCHEMA_OF: Partial<Record<CollectionName, string>> = {
  agents: "Agent",
  calls: "Call",
  phoneNumbers: "PhoneNumber",
  integrations: "Integration",
  knowledgeBases: "KnowledgeBase",
  webhooks: "Webhook",
  qaRules: "QaRule",
  testCases: "TestCase",
  batchRuns: "BatchRun",
  testRuns: "TestRun",
  chats: "ChatCompletion",
};

/** What is wrong with a record of a collection, field by field; undefined when nothing. */
export type RecordCheck = (name: CollectionName, record: unknown) => ValidationErrors | undefined;

/**
 * What is wrong with `record` as a record of `name`, field by field; undefined when nothing. `schemas`:
 * the validators of the spec the mock serves (recordCheck), those bundled into generated/ by default.
 */
export function recordErrors(
  name: CollectionName,
  record: unknown,
  schemas: Record<string, CompiledValidator> = bundledSchemas,
): ValidationErrors | undefined {
  const schema = SCHEMA_OF[name];
  if (schema) {
    const validate = schemas[schema];
    // A spec reloaded by --watch may have renamed the schema: nothing can vouch for the record then.
    if (!validate) return { record: `cannot be checked: the spec has no schema ${schema}` };
    if (!validate(record)) return toValidationErrors(validate.errors);
  }
  const id = (collectionOptions[name].idOf as (r: unknown) => unknown)(record);
  return typeof id === "string" && id.length > 0 ? undefined : { id: "must be a non-empty string" };
}

/** The check of records against a contract's schemas: the spec a mock serves, which a reload replaces. */
export function recordCheck(contract: Contract): RecordCheck {
  const schemas = contract.validators.schemaValidators;
  return (name, record) => recordErrors(name, record, schemas);
}

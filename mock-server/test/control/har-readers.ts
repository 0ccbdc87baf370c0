/**
 * HAR readers that are not ours, for the HAR export's tests: the HAR 1.2 JSON Schema from npm
 * (`har-schema`, the one `har-validator` uses) under ajv, and `httpsnippet`, which validates a
 * request against the same schema and writes it as a curl command (no browser needed).
 */
import { createRequire } from "node:module";
import { Ajv } from "ajv";
import addFormatsModule from "ajv-formats";
import { HTTPSnippet } from "httpsnippet";

const require = createRequire(import.meta.url);
const schemas = require("har-schema") as Record<string, { $id: string }>;
const draft06 = require("ajv/dist/refs/json-schema-draft-06.json") as object;

// ajv-formats is CommonJS; under ESM its function may arrive wrapped in `default`.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv,
) => void;

let validate: ReturnType<Ajv["compile"]> | undefined;

/** What the HAR 1.2 schema finds wrong with `har`: [] when it is valid. */
export function harSchemaErrors(har: unknown): string[] {
  if (!validate) {
    // The schema files carry keywords of their own (`optional`, `min`): not strict.
    const ajv = new Ajv({ strict: false, allErrors: true });
    ajv.addMetaSchema(draft06);
    addFormats(ajv);
    for (const schema of Object.values(schemas)) ajv.addSchema(schema);
    validate = ajv.getSchema("har.json#")!;
  }
  if (validate(har)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

/** The entry's request as a curl command, by httpsnippet (which refuses a request the HAR schema does). */
export function curlOf(request: unknown): string {
  // A copy: httpsnippet writes what it works out into the request it is given.
  return new HTTPSnippet(structuredClone(request) as never).convert("shell", "curl") as string;
}

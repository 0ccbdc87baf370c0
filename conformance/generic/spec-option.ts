/**
 * `--spec FILE`: another OpenAPI document (3.0 or 3.1, YAML or JSON, local $refs bundled) read and
 * brought to 3.1 as the mock reads it (mock-server/node/spec-file.ts, core/openapi-document.ts), so the
 * suite and a mock serving the same file name every operation alike (operationIds derived the same way).
 */
import { normalizeDocument } from "../../mock-server/core/openapi-document.js";
import { readSpecFile } from "../../mock-server/node/spec-file.js";
import type { JsonObject } from "../../mock-server/core/exchange-rules/json-document.js";
import { suiteDocument, type SuiteDocument } from "../lib/document.js";

/** The document of `file`, checked by generic rules only; throws an Error with one line saying what is wrong. */
export async function loadSuiteDocument(file: string): Promise<SuiteDocument> {
  let doc: JsonObject;
  try {
    doc = normalizeDocument(await readSpecFile(file)) as JsonObject;
  } catch (error) {
    const message = (error as Error).message;
    throw new Error(message.startsWith("--spec") ? message : `--spec ${file}: ${message}`);
  }
  const document = suiteDocument(doc, file, false);
  if (document.operations.size === 0) throw new Error(`--spec ${file} has no operation to check`);
  return document;
}

/**
 * The document a run checks. By default the bundled spec (generated/openapi.json), whose operations
 * have the suite's hand-written rules; with --spec FILE another OpenAPI document, checked by the
 * generic rules alone. Everything a rule or a report reads of "the spec" for a run comes from the run's
 * document (carried in its Fixtures and RunResult), so two runs in one process may check two documents.
 */
import type { JsonObject } from "../../mock-server/core/exchange-rules/json-document.js";
import { operationTable, type OperationInfo } from "../../mock-server/core/exchange-rules/operation-table.js";
import { credentialPlacement, type CredentialPlacement } from "./credentials.js";
import { spec } from "./spec.js";

export interface SuiteDocument {
  doc: JsonObject;
  operations: Map<string, OperationInfo>;
  /** Where it came from, for the reports: generated/openapi.json or the --spec file. */
  source: string;
  /**
   * Whether the suite's hand-written rules apply (this API's document: the bundled spec, or a copy of it
   * with operations added). False for --spec: only generic rules.
   */
  handWritten: boolean;
  /** The path of the document's first server URL ("" when it names none or only a host): paths hang under it. */
  basePath: string;
  /** Where the credential goes; undefined: X-API-Key, as the bundled spec says. */
  credential?: CredentialPlacement;
  /** Whether failures carry the reference's 2.2 error body (status, error, message, path), checked as such. */
  referenceErrors: boolean;
}

/** `{var}` of a server URL replaced by its default, then its path without a trailing slash. */
export function documentBasePath(doc: JsonObject): string {
  const server = (Array.isArray(doc.servers) ? doc.servers[0] : undefined) as JsonObject | undefined;
  if (!server || typeof server.url !== "string") return "";
  const variables = (server.variables ?? {}) as Record<string, { default?: unknown }>;
  const url = server.url.replace(/\{([^}]+)\}/g, (_, name: string) => String(variables[name]?.default ?? ""));
  try {
    return decodeURI(new URL(url, "http://placeholder.invalid").pathname).replace(/\/+$/, "");
  } catch {
    return "";
  }
}

/** Whether the document's error body is the reference's 2.2 body: a schema named Error with its four fields. */
function speaksReferenceErrors(doc: JsonObject): boolean {
  const schemas = ((doc.components as JsonObject | undefined)?.schemas ?? {}) as JsonObject;
  const error = schemas.Error as JsonObject | undefined;
  const properties = (error?.properties ?? {}) as JsonObject;
  return ["status", "error", "message", "path"].every((name) => name in properties);
}

/**
 * A document for a run. `handWritten`: this API's document, whose hand-written rules apply (the bundled
 * spec, or a copy of it with operations added); the credential then goes as X-API-Key, as they send it.
 */
export function suiteDocument(doc: JsonObject, source: string, handWritten: boolean): SuiteDocument {
  return {
    doc,
    operations: operationTable(doc),
    source,
    handWritten,
    basePath: documentBasePath(doc),
    credential: handWritten ? undefined : credentialPlacement(doc),
    referenceErrors: speaksReferenceErrors(doc),
  };
}

/** The bundled spec, the document of every run without --spec. */
export const bundledDocument: SuiteDocument = suiteDocument(spec, "generated/openapi.json", true);

/**
 * What comes before an operation's path template in a request: the document's base path, unless the
 * base URL already ends with it (`--base-url https://host/api/v3` for servers `/api/v3`).
 */
export function pathPrefix(document: SuiteDocument, baseUrl: string): string {
  const base = new URL(baseUrl).pathname.replace(/\/+$/, "");
  return document.basePath && !base.endsWith(document.basePath) ? document.basePath : "";
}

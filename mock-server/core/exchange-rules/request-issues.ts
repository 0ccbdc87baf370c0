/**
 * What a client sent, against the operation's parameters and request body in the document: the path
 * and query parameters (strings, coerced to their schema types as the mock reads them) and a JSON body,
 * with the same leveled validators and rule names as responses. A multipart body is not judged here:
 * its parts are no JSON value for the schemas (the mock's own upload rules judge those).
 */
import { isJsonContentType, type RuledIssue } from "./issue.js";
import { leveledValidators, type Level } from "./leveled-validators.js";
import { operationIn } from "./operation-table.js";
import { ruledSchemaIssues, validationIssues } from "./schema-issues.js";

export interface ObservedRequest {
  operationId: string;
  method: string;
  path: string;
  /** Path parameters by name, decoded (`+14155550123`, not `%2B14155550123`). */
  pathParams: Record<string, string>;
  /** Query parameters as sent; a repeated one as an array. */
  query: Record<string, string | string[]>;
  contentType?: string;
  /**
   * The parsed JSON body; undefined when there is none, it is not JSON, it was not read, or it is
   * multipart. With no content type either, a body the operation requires is missing.
   */
  body?: unknown;
}

const mediaType = (contentType: string | undefined) => contentType?.split(";")[0].trim().toLowerCase();

export function ruledRequestIssues(doc: object, request: ObservedRequest, level: Level): RuledIssue[] {
  const op = operationIn(doc, request.operationId);
  const sent = { path: { ...request.pathParams }, query: { ...request.query } };
  // The validator coerces what it is given in place: it gets a copy, the issues show what was sent.
  const copy = {
    path: { ...sent.path },
    query: Object.fromEntries(Object.entries(sent.query).map(([k, v]) => [k, Array.isArray(v) ? [...v] : v])),
  };
  const issues = validationIssues(doc, leveledValidators(doc).parametersValidator(op, level), copy, sent);
  const expectedType = op.requestContentType;
  if (!expectedType) return issues;
  if (request.contentType === undefined && request.body === undefined) {
    if (op.requestBodyRequired)
      issues.push({
        rule: "body",
        issue: {
          pointer: "",
          expected: `a ${expectedType} body`,
          actual: "(none)",
          message: `${op.operationId} requires a request body`,
        },
      });
  } else if (mediaType(request.contentType) !== expectedType.toLowerCase()) {
    issues.push({
      rule: "content-type",
      issue: {
        pointer: "#header/content-type",
        expected: expectedType,
        actual: request.contentType ?? "(none)",
        message: `${op.operationId} takes a ${expectedType} request body`,
      },
    });
  } else if (isJsonContentType(expectedType) && op.requestSchemaPointer && request.body !== undefined) {
    // A JSON body given undefined is not judged: the caller may have left it unparsed (the upstream door
    // copies bodies up to a limit for its checks), so its absence says nothing.
    issues.push(...ruledSchemaIssues(doc, request.body, op.requestSchemaPointer, level));
  }
  return issues;
}

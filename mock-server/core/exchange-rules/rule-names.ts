/**
 * The names of the single-exchange rules, one per kind of disagreement with the document. The suite's
 * issues are reported under the suite's own rule ids and need none; the upstream door's drift findings
 * carry one each, so that a report can group, count and filter them.
 */
export const DRIFT_RULES = [
  { rule: "status", description: "the status is not documented for the operation" },
  {
    rule: "content-type",
    description: "a documented body is not application/json, or a request body is not of the operation's media type",
  },
  {
    rule: "body",
    description: "a documented body is missing or not JSON, or a body comes where the status documents none",
  },
  { rule: "required", description: "a required property or parameter is absent" },
  { rule: "enum", description: "a value is outside its documented set (enum or const)" },
  { rule: "format", description: "a value lacks its documented format (date-time, uuid, uri, int32, ...)" },
  { rule: "e164", description: "a phone number field does not match its E.164 pattern" },
  { rule: "schema", description: "any other schema keyword fails (type, bounds, unknown property, other patterns)" },
  {
    rule: "error-body",
    description: "a 2.2 error body disagrees with its exchange (status, status text, path, message)",
  },
  {
    rule: "pagination",
    description: "a list page breaks the 2.1 arithmetic for the page and size asked (0 and 10 by default)",
  },
  { rule: "order", description: "the items of a list page whose order is known are out of order by their timestamp" },
  { rule: "timeline", description: "a record was updated before it was created (updatedAt < createdAt)" },
] as const;

export type DriftRule = (typeof DRIFT_RULES)[number]["rule"];

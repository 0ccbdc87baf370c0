/** Section 2.2 and 7: the error body repeats the HTTP status, its status text and the request path. */
import { preview, type Issue, type ObservedExchange } from "./issue.js";
import { REFERENCE_STATUS_TEXT } from "./operation-table.js";

export function errorBodyIssues(exchange: ObservedExchange): Issue[] {
  const body = exchange.json as Record<string, unknown>;
  const issues: Issue[] = [];
  if (body.status !== exchange.status) {
    issues.push({
      pointer: "/status",
      expected: String(exchange.status),
      actual: preview(body.status),
      message: "error body status must equal the HTTP status",
    });
  }
  if (typeof body.message === "string" && body.message.trim() === "") {
    issues.push({
      pointer: "/message",
      expected: "a detailed message",
      actual: '""',
      message: "message says what went wrong (2.2)",
    });
  }
  const text = REFERENCE_STATUS_TEXT[exchange.status];
  if (text && body.error !== text) {
    issues.push({
      pointer: "/error",
      expected: JSON.stringify(text),
      actual: preview(body.error),
      message: "error must be the HTTP status text",
    });
  }
  // Section 1: paths are relative to {base_url}. Behind a prefix (https://host/api) a deployment may
  // name the full path (/api/v1/agents) or the path relative to the base URL (/v1/agents): both are right.
  const path = exchange.request.path;
  const base = exchange.request.basePath ?? "";
  const relative = base && path.startsWith(`${base}/`) ? path.slice(base.length) : path;
  const accepted = new Set([path, safeDecode(path), relative, safeDecode(relative)]);
  if (typeof body.path === "string" && !accepted.has(body.path) && !accepted.has(safeDecode(body.path))) {
    const expected =
      relative === path ? JSON.stringify(path) : `${JSON.stringify(path)} or ${JSON.stringify(relative)}`;
    issues.push({ pointer: "/path", expected, actual: preview(body.path), message: "path must be the request path" });
  }
  return issues;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

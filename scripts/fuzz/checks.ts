/**
 * What every fuzzed response must satisfy: never a 5xx; every error (>= 400) is the reference's 2.2
 * body as application/json, its `status` equal to the HTTP status; a success of an operation conforms
 * to the spec; a request the spec refuses is refused (4xx) and one it accepts is not refused as bad.
 */
import {
  conformanceIssues,
  errorBodyIssues,
  isJsonContentType,
  schemaIssues,
  type Issue,
} from "../../conformance/lib/conforms.js";
import type { Exchange } from "../../conformance/lib/http.js";
import { operations } from "../../conformance/lib/spec.js";
import type { FuzzCase } from "./case.js";
import type { WireResponse } from "./wire.js";

function exchangeOf(c: FuzzCase, response: WireResponse): Exchange {
  let json: unknown;
  try {
    json = response.text.length > 0 ? JSON.parse(response.text) : undefined;
  } catch {
    json = undefined;
  }
  const path = c.wire.target.split("?")[0];
  return {
    request: { method: c.wire.method, url: c.wire.target, path, basePath: "", headers: {} },
    status: response.status,
    headers: new Headers(Object.entries(response.headers).filter(([, v]) => /^[\t\x20-\x7e]*$/.test(v))),
    text: response.text,
    json,
    durationMs: 0,
  };
}

/** Express routes case-insensitively and ignores a trailing slash: the operation that really answered. */
const ROUTES = [...operations.values()].map((op) => ({
  op,
  pattern: new RegExp(`^${op.path.replace(/\{[^}]+\}/g, "[^/]+")}/?$`, "i"),
}));

export function answeringOperation(method: string, target: string): string | undefined {
  const path = target.split("?")[0];
  return ROUTES.find((r) => r.op.method === method && r.pattern.test(path))?.op.operationId;
}

const show = (issues: Issue[]) =>
  issues.map((i) => `${i.pointer || "(body)"}: expected ${i.expected}, got ${i.actual}`);

export function responseProblems(c: FuzzCase, response: WireResponse): string[] {
  const problems: string[] = [];
  const { status } = response;
  if (status >= 500) problems.push(`answered ${status}: ${response.text.slice(0, 300)}`);
  if (status < 100 || status > 599) problems.push(`not an HTTP status: ${status}`);
  const exchange = exchangeOf(c, response);
  if (status >= 400) {
    if (!isJsonContentType(response.headers["content-type"] ?? null))
      problems.push(
        `error ${status} with Content-Type ${response.headers["content-type"] ?? "(none)"}, not application/json`,
      );
    if (c.wire.method !== "HEAD") {
      if (exchange.json === undefined)
        problems.push(`error ${status} without a JSON body: ${JSON.stringify(response.text.slice(0, 200))}`);
      else {
        problems.push(
          ...show(schemaIssues(exchange.json, "/components/schemas/Error", "assumed")).map((p) => `error body: ${p}`),
        );
        // A request Node's parser refused may have no readable path: then the body says "*" (the server as a whole).
        const unreadable = c.kind === "raw" || (status === 431 && (exchange.json as { path?: unknown }).path === "*");
        const issues = errorBodyIssues(exchange).filter((i) => !unreadable || i.pointer !== "/path");
        problems.push(...show(issues).map((p) => `error body: ${p}`));
      }
    }
  } else if (
    status >= 200 &&
    status < 300 &&
    c.wire.raw === undefined &&
    answeringOperation(c.wire.method, c.wire.target)
  ) {
    problems.push(
      ...show(
        conformanceIssues(exchange, answeringOperation(c.wire.method, c.wire.target)!, "assumed").filter(
          (i) => i.pointer !== "#status",
        ),
      ).map((p) => `success body: ${p}`),
    );
  }
  if (c.expect === "reject" && (status < 400 || status >= 500))
    problems.push(`a request the spec refuses was answered ${status}, not 4xx`);
  if (c.expect === "accept" && status === 400)
    problems.push(`a request valid by the spec was refused: ${response.text.slice(0, 300)}`);
  return problems;
}

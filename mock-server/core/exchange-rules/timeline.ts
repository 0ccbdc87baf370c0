/** A record is not updated before it is created: updatedAt >= createdAt wherever both are timestamps. */
import { preview, type Issue } from "./issue.js";

export function timelineIssues(body: unknown, pointer: string): Issue[] {
  const issues: Issue[] = [];
  visit(body, [pointer], issues);
  return issues;
}

/**
 * Depth first, children before their parent (the order issues are listed in). The pointer is built
 * only for an issue: this runs on every answer the upstream door forwards, over whole pages.
 */
function visit(node: unknown, path: string[], issues: Issue[]): void {
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const item = node[i];
      if (item && typeof item === "object") {
        path.push(String(i));
        visit(item, path, issues);
        path.pop();
      }
    }
    return;
  }
  if (!node || typeof node !== "object") return;
  const record = node as Record<string, unknown>;
  for (const key in record) {
    const value = record[key];
    if (value && typeof value === "object") {
      path.push(key);
      visit(value, path, issues);
      path.pop();
    }
  }
  const { createdAt, updatedAt } = record;
  if (typeof createdAt !== "string" || typeof updatedAt !== "string") return;
  if (Date.parse(updatedAt) < Date.parse(createdAt))
    issues.push({
      pointer: `${path.join("/")}/updatedAt`,
      expected: `>= createdAt ${createdAt}`,
      actual: preview(updatedAt),
      message: "a record is not updated before it is created",
    });
}

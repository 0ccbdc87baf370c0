/** A record is not updated before it is created: updatedAt >= createdAt wherever both are timestamps. */
import { preview, type Issue } from "./issue.js";

export function timelineIssues(body: unknown, pointer: string): Issue[] {
  if (Array.isArray(body)) return body.flatMap((item, i) => timelineIssues(item, `${pointer}/${i}`));
  if (!body || typeof body !== "object") return [];
  const record = body as Record<string, unknown>;
  const issues = Object.entries(record).flatMap(([k, v]) =>
    v && typeof v === "object" ? timelineIssues(v, `${pointer}/${k}`) : [],
  );
  const created = typeof record.createdAt === "string" ? Date.parse(record.createdAt) : NaN;
  const updated = typeof record.updatedAt === "string" ? Date.parse(record.updatedAt) : NaN;
  if (updated < created)
    issues.push({
      pointer: `${pointer}/updatedAt`,
      expected: `>= createdAt ${record.createdAt}`,
      actual: preview(record.updatedAt),
      message: "a record is not updated before it is created",
    });
  return issues;
}

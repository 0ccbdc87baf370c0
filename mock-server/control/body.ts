/** Reading control-plane input: JSON bodies and query filters, refused with the 2.2 body (400) when off. */
import { invalid } from "../core/errors.js";

export function objectBody(body: unknown): Record<string, unknown> {
  if (body === undefined) return {};
  if (!body || typeof body !== "object" || Array.isArray(body)) throw invalid({ body: "must be a JSON object" });
  return body as Record<string, unknown>;
}

export function onlyKeys(body: Record<string, unknown>, allowed: string[]): void {
  const extra = Object.keys(body).filter((k) => !allowed.includes(k));
  if (extra.length > 0) throw invalid(Object.fromEntries(extra.map((k) => [k, "is not allowed"])));
}

export function optionalInteger(value: unknown, field: string, max = 4294967295): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > max)
    throw invalid({ [field]: `must be an integer from 0 to ${max}` });
  return value as number;
}

export function optionalString(value: unknown, field: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value.length === 0) throw invalid({ [field]: "must be a non-empty string" });
  return value;
}

/** Query parameters: only `allowed` names, each at most once. */
export function queryOf(query: URLSearchParams, allowed: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  const errors: Record<string, string> = {};
  for (const [name, value] of query) {
    if (!allowed.includes(name)) errors[name] = `is not a filter; filters: ${allowed.join(", ")}`;
    else if (name in out) errors[name] = "is given more than once";
    else out[name] = value;
  }
  if (Object.keys(errors).length > 0) throw invalid(errors);
  return out;
}

/** A query value that must be an integer in [min, max]. */
export function queryInteger(value: string | undefined, field: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === "" || !Number.isInteger(n) || n < min || n > max)
    throw invalid({ [field]: `must be an integer from ${min} to ${max}` });
  return n;
}

/**
 * How long a target asks to be left alone (RFC 9110 10.2.3): `Retry-After` as delta-seconds or as an
 * HTTP-date. A date is read against the answer's own `Date` header when it has one, so a target whose
 * clock differs from ours is still waited for as long as it meant (never less: `Date` has whole seconds).
 */

/** Milliseconds to wait, or undefined when the header is absent or unreadable. */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const value = headers.get("retry-after")?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  if (Number.isNaN(at)) return undefined;
  const answeredAt = Date.parse(headers.get("date") ?? "");
  return Math.max(0, at - (Number.isNaN(answeredAt) ? now : answeredAt));
}

/** Parses a pace option: `auto`, `20/s`, `600/m`, or a plain number (per second). */
export function parseRateLimit(value: string): { kind: "auto" } | { kind: "fixed"; perSecond: number } | undefined {
  if (value === "auto") return { kind: "auto" };
  const m = /^(\d+(?:\.\d+)?)(?:\/(s|m))?$/.exec(value.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  if (!(n > 0)) return undefined;
  return { kind: "fixed", perSecond: m[2] === "m" ? n / 60 : n };
}

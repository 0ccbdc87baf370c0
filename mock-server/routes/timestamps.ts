/**
 * `updatedAt` must move on every change, even when two requests share a millisecond or the virtual
 * clock stands still: the new value is at least one millisecond after the old one.
 */
export function laterThan(previous: string, now: string): string {
  const prev = Date.parse(previous);
  const current = Date.parse(now);
  return current > prev ? now : new Date(prev + 1).toISOString();
}

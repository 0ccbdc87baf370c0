/**
 * Copies of a JSON record with fields taken out or set at dotted paths (`agentSettings.globalPrompt`):
 * how the recording tests make an upstream's records that leave out what the spec's record rule adds.
 */
type Json = Record<string, any>;

/** A copy of `record` without the fields at the dotted paths. */
export function without(record: Json, paths: string[]): Json {
  const copy = structuredClone(record);
  for (const path of paths) {
    const keys = path.split(".");
    const last = keys.pop()!;
    delete keys.reduce((at, key) => at[key], copy)[last];
  }
  return copy;
}

/** A copy of `record` with the values at the dotted paths. */
export function withValues(record: Json, values: Record<string, unknown>): Json {
  const copy = structuredClone(record);
  for (const [path, value] of Object.entries(values)) {
    const keys = path.split(".");
    const last = keys.pop()!;
    keys.reduce((at, key) => at[key], copy)[last] = value;
  }
  return copy;
}

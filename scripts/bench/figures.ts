/**
 * `--against REV`'s arithmetic, for any part: a part's figures (whatever JSON it returns) flattened into
 * named numbers, the rounds of this tree and of REV set side by side, and each figure printed as
 * now / REV with the change and the spread of the rounds. Pure, so that it is unit-tested
 * (figures.test.ts); against.ts runs the rounds.
 */

/** Named numbers: `GET /v1/calls/{callId} · cells · c · rps` -> 6077. */
export type Figures = Record<string, number>;

/** Keys that describe the run, not the kit measured (when, with what plan, on what load): not compared. */
const CONTEXT_KEYS = new Set([
  "command",
  "date",
  "durationSec",
  "loadBefore",
  "loadAfter",
  "load",
  "plan",
  "cores",
  "machine",
  "chromium",
]);

/** Numbers that only count what a run did (a load run's requests: its req/s says it): not compared. */
const COUNT_KEYS = new Set(["requests"]);

/** Keys that only hold the figures of a row (compare.ts's `cells`): left out of the figures' names. */
const TRANSPARENT_KEYS = new Set(["cells", "cell"]);

/** The fields that name an element of a list of rows, in the order looked for. */
const NAME_KEYS = ["scenario", "answer", "viewer", "reader", "what", "name", "id", "kind", "config"];

export const SEPARATOR = " · ";

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  if (!sorted.length) return Number.NaN;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function nameOf(value: unknown): string | undefined {
  if (!value || typeof value !== "object" || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  const key = NAME_KEYS.find((k) => typeof record[k] === "string");
  return key && (record[key] as string);
}

/**
 * Every finite number of `value` under the path of keys that leads to it. A list of rows each named by a
 * field (scenario, viewer...) is keyed by that name; a list of numbers, or of unnamed rows (a part's own
 * repeated runs), gives the median of each figure, so that one figure is one number per round.
 */
export function flattenFigures(value: unknown, prefix = "", into: Figures = {}): Figures {
  const at = (key: string) => (prefix ? `${prefix}${SEPARATOR}${key}` : key);
  if (typeof value === "number") {
    if (prefix && Number.isFinite(value)) into[prefix] = value;
  } else if (Array.isArray(value)) {
    const names = value.map(nameOf);
    if (value.length && names.every((n) => n !== undefined) && new Set(names).size === value.length) {
      value.forEach((row, i) => flattenFigures(row, at(names[i]!), into));
    } else {
      const samples = value.map((row) => flattenFigures(row, prefix));
      for (const name of new Set(samples.flatMap((s) => Object.keys(s))))
        into[name] = median(samples.flatMap((s) => (name in s ? [s[name]] : [])));
    }
  } else if (value && typeof value === "object") {
    for (const [key, inner] of Object.entries(value))
      if (!CONTEXT_KEYS.has(key) && !(COUNT_KEYS.has(key) && typeof inner === "number"))
        flattenFigures(inner, TRANSPARENT_KEYS.has(key) ? prefix : at(key), into);
  }
  return into;
}

/**
 * A figure shown also as a ratio to another: a figure of the part's baseline (the mock's req/s over bare
 * node:http's), or else one the part measured beside it on each side (the upstream door over the bare proxy).
 */
export interface RatioTo {
  label: string;
  figure: string;
}

export interface FigureRow {
  name: string;
  /** One value per round in which the figure was measured, for this tree and for REV. */
  now: number[];
  then: number[];
  ratios: { label: string; now: number; then: number }[];
}

/**
 * The figures of the rounds side by side, in the order first seen; those the same in every round on both
 * sides (errors 0, a count of entries) are counted in `same`, not listed.
 */
export function compareFigures(
  now: Figures[],
  then: Figures[],
  baseline: Figures[] = [],
  ratiosOf: (figure: string) => RatioTo[] = () => [],
): { rows: FigureRow[]; same: string[] } {
  const names = [...new Set([...now, ...then].flatMap((f) => Object.keys(f)))];
  const values = (rounds: Figures[], name: string) => rounds.flatMap((f) => (name in f ? [f[name]] : []));
  const rows: FigureRow[] = [];
  const same: string[] = [];
  for (const name of names) {
    const row = { name, now: values(now, name), then: values(then, name) };
    const all = [...row.now, ...row.then];
    if (row.now.length && row.then.length && all.every((v) => v === all[0])) {
      same.push(name);
      continue;
    }
    const ratios = ratiosOf(name).flatMap(({ label, figure }) => {
      const base = values(baseline, figure);
      const over = (side: number[], rounds: Figures[]) => {
        const by = median(base.length ? base : values(rounds, figure));
        return by > 0 ? median(side) / by : Number.NaN;
      };
      const ratio = { label, now: over(row.now, now), then: over(row.then, then) };
      return Number.isFinite(ratio.now) || Number.isFinite(ratio.then) ? [ratio] : [];
    });
    rows.push({ ...row, ratios });
  }
  return { rows, same };
}

/** A figure to the precision its size deserves. */
export function formatNumber(n: number): string {
  if (!Number.isFinite(n)) return "n/a";
  const size = Math.abs(n);
  if (size >= 10_000) return Math.round(n).toLocaleString("en-US");
  if (size < 1 && n !== 0) return n.toPrecision(3);
  return n.toFixed(size >= 100 ? 0 : size >= 10 ? 1 : 2);
}

const spread = (values: number[]) =>
  values.length ? `${formatNumber(Math.min(...values))}–${formatNumber(Math.max(...values))}` : "n/a";

/**
 * `name  now / REV (change), spread now min–max / REV min–max`: medians of the rounds, the change of
 * now against REV, then any ratio to a baseline as now / REV.
 */
export function formatFigure(row: FigureRow, rev: string): string {
  const now = median(row.now);
  const then = median(row.then);
  const change = then !== 0 && row.now.length && row.then.length ? ((now - then) / Math.abs(then)) * 100 : Number.NaN;
  const changed = Number.isFinite(change) ? `${change >= 0 ? "+" : ""}${change.toFixed(1)} %` : "n/a";
  const x = (ratio: number) => (Number.isFinite(ratio) ? `${ratio.toFixed(2)}x` : "n/a");
  const ratios = row.ratios.map((r) => `; over ${r.label} ${x(r.now)} / ${x(r.then)}`).join("");
  return `${row.name}  now / ${rev}: ${formatNumber(now)} / ${formatNumber(then)} (${changed}), spread ${spread(row.now)} / ${spread(row.then)}${ratios}`;
}

/**
 * The line for the figures the same in every round on both sides (errors 0, a count of entries): how
 * many, and the last part of their names.
 */
export function formatSame(same: string[]): string {
  const kinds = [...new Set(same.map((name) => name.split(SEPARATOR).at(-1)))];
  return `${same.length} figure(s) the same in every round on both sides: ${kinds.join(", ")}`;
}

/** A baseline figure (measured once a round, for both): its median and spread. */
export function formatBaseline(name: string, values: number[]): string {
  return `${name}  ${formatNumber(median(values))}${values.length > 1 ? `, spread ${spread(values)}` : ""}`;
}

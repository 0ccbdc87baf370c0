/**
 * On the kit's mock the workspace's records are the truth: the control plane answers them as stored,
 * in the reference's shapes (GET /__mock/workspaces/{id}/{collection}). What the API answers must be
 * exactly those records: no record of another workspace, none missing, no value garbled, which no
 * schema can see. Elsewhere there is no truth to compare with, and the rules say so.
 */
import type { Fixtures } from "../fixtures/types.js";
import type { RuleContext, RuleSpec } from "../lib/rule.js";
import { walk, type ListConfig } from "./list-pages.js";

export interface StoreConfig {
  collection: string;
  idOf(record: Record<string, any>): string;
  /** Records the unfiltered list shows (E17 lists enabled webhooks by default). */
  listed?(record: Record<string, any>): boolean;
  /** Grows when a record moves on by itself (a call progresses, a run completes): an older answer is not compared. */
  version?(record: Record<string, any>): number;
}

const NO_CONTROL = "needs the kit's mock: only its control plane knows what the workspace holds";
const ISO = /^\d{4}-\d\d-\d\dT[\d:.]+(Z|[+-]\d\d:\d\d)$/;

/** JSON pointers where `actual` differs from `expected`; null and absent are alike, timestamps compare as instants. */
export function differences(actual: unknown, expected: unknown, pointer = ""): string[] {
  if ((actual ?? null) === null && (expected ?? null) === null) return [];
  if (typeof actual === "string" && typeof expected === "string" && ISO.test(actual) && ISO.test(expected)) {
    return Date.parse(actual) === Date.parse(expected) ? [] : [pointer];
  }
  if (Array.isArray(actual) && Array.isArray(expected)) {
    if (actual.length !== expected.length) return [pointer];
    return actual.flatMap((a, i) => differences(a, expected[i], `${pointer}/${i}`));
  }
  const isObj = (v: unknown) => !!v && typeof v === "object" && !Array.isArray(v);
  if (isObj(actual) && isObj(expected)) {
    const a = actual as Record<string, unknown>;
    const e = expected as Record<string, unknown>;
    return [...new Set([...Object.keys(a), ...Object.keys(e)])].flatMap((k) =>
      differences(a[k], e[k], `${pointer}/${k}`),
    );
  }
  return Object.is(actual, expected) ? [] : [pointer];
}

const at = (value: unknown, pointer: string) =>
  pointer
    .split("/")
    .slice(1)
    .reduce<any>((node, k) => (node == null ? undefined : node[k]), value);

/** Compares one answered record with the stored one, unless the record moved on in between. */
export function expectStored(
  t: RuleContext,
  answered: Record<string, any>,
  stored: Record<string, any>,
  pointer: string,
  store: StoreConfig,
  exchange = t.exchanges[t.exchanges.length - 1],
): void {
  if (store.version && store.version(answered) < store.version(stored)) return;
  for (const diff of differences(answered, stored).slice(0, 5)) {
    const [got, want] = [at(answered, diff), at(stored, diff)];
    // "" for a text without a value differs from null only by the kit's record rule (an x-assumption).
    const emptyForNull = (got === "" && want == null) || (want === "" && got == null);
    t.expect(false, {
      pointer: `${pointer}${diff}`,
      expected: want,
      actual: got,
      message: `the ${store.collection} record as the workspace holds it${emptyForNull ? ' (assumption: a field without a value is null, not "")' : ""}`,
      exchange,
      assumed: emptyForNull,
    });
  }
}

async function storedRecords(t: RuleContext, store: StoreConfig): Promise<Map<string, Record<string, any>>> {
  const control = t.fixtures.control;
  if (!control) return t.skip(NO_CONTROL);
  return new Map((await control.listRecords(store.collection)).map((r) => [store.idOf(r), r]));
}

/** `<list>.matches-store`: walking the unfiltered list yields exactly the workspace's records, unaltered. */
export function listMatchesStore(cfg: ListConfig, store: StoreConfig): RuleSpec {
  return {
    id: `${cfg.operationId}.matches-store`,
    operationId: cfg.operationId,
    level: "documented",
    readOnly: true,
    description: "The list shows exactly the workspace's records, each as stored (kit's mock only).",
    run: async (t) => {
      if (!t.fixtures.control) return t.skip(NO_CONTROL);
      const result = await walk(t, cfg, {}, 25, 40);
      const records = await storedRecords(t, store);
      if (!result?.complete) return;
      const expectedIds = [...records.values()]
        .filter((r) => store.listed?.(r) ?? true)
        .map(store.idOf)
        .sort();
      const listedIds = result.items.map(cfg.idOf);
      const extra = listedIds.filter((id) => !records.has(id));
      t.expect(extra.length === 0, {
        pointer: "/data",
        expected: "only records of the workspace",
        actual: extra.join(", "),
        message: "every listed record belongs to the workspace of the key",
      });
      t.expectEqual([...listedIds].sort(), expectedIds, "/data", "the pages list every record of the workspace once");
      for (const page of result.pages) {
        page.data.forEach((item, i) => {
          const stored = records.get(cfg.idOf(item));
          if (stored) expectStored(t, item, stored, `/data/${i}`, store, page.exchange);
        });
      }
    },
  };
}

/** `<get>.matches-store`: the get-one operation answers the stored record for each id the fixtures know. */
export function getMatchesStore(
  operationId: string,
  store: StoreConfig,
  ids: (f: Fixtures, records: Map<string, Record<string, any>>) => (string | undefined)[],
  path: (id: string) => string,
): RuleSpec {
  return {
    id: `${operationId}.matches-store`,
    operationId,
    level: "documented",
    readOnly: true,
    description: "The record answered is the one the workspace holds, unaltered (kit's mock only).",
    run: async (t) => {
      const records = await storedRecords(t, store);
      const wanted = ids(t.fixtures, records).filter((id): id is string => !!id && records.has(id));
      if (wanted.length === 0) return t.skip("the fixtures made no such record");
      for (const id of wanted) {
        const ex = await t.call(operationId, { method: "GET", path: path(id) });
        if (!t.expectStatus(ex, 200)) continue;
        // The store is read again only when the record differs: it may have moved on since (a call progressing).
        const answered = ex.json as Record<string, any>;
        const stored =
          differences(answered, records.get(id)).length === 0
            ? records.get(id)!
            : ((await storedRecords(t, store)).get(id) ?? records.get(id)!);
        expectStored(t, answered, stored, "", store, ex);
      }
    },
  };
}

/** The same entries in any order (each matched once, compared as `differences` does): an array whose order the reference does not state. */
export function sameMembers(actual: unknown, expected: unknown): boolean {
  if (!Array.isArray(actual) || !Array.isArray(expected) || actual.length !== expected.length) return false;
  const left = [...expected];
  return actual.every((a) => {
    const at = left.findIndex((e) => differences(a, e).length === 0);
    return at >= 0 && left.splice(at, 1).length === 1;
  });
}

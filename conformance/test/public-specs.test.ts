/**
 * The suite with `--spec FILE` against the kit serving that document (`startMock({ spec })`): the two
 * public documents of mock-server/test/public-specs pass with generic rules for every operation, on
 * the kit's mock as detected and as a foreign deployment (documented level, ledger), and no run leaves
 * a record behind in any workspace, nor changes one that was there.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startMock } from "../../mock-server/server.js";
import type { Workspace } from "../../mock-server/store/workspace.js";
import {
  basePath,
  basic,
  bearer,
  loadDocument,
  MUSEUM,
  PETSTORE,
} from "../../mock-server/test/public-specs/support.js";
import { main } from "../cli.js";

const work = mkdtempSync(join(tmpdir(), "public-specs-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Every generic record the mock holds, in any workspace: the collections that are not empty. */
function recordsLeft(workspaces: Workspace[]): Record<string, unknown[]> {
  const left: Record<string, unknown[]> = {};
  for (const workspace of workspaces)
    for (const [name, records] of Object.entries(workspace.generic.export()))
      if (records.length > 0) left[`${workspace.workspaceId}/${name}`] = records;
  return left;
}

interface Case {
  name: string;
  file: string;
  /** The --api-key: a bearer token (Petstore's OAuth2; its api_key header too), user:password (Museum's basic). */
  apiKey: string;
  /** The operations of the document, each of which must have generic rules in the report. */
  operations: number;
  /** Round trips the suite must have run (one per collection with a create). */
  roundTrips: string[];
  /** A record made before the run, and the headers of the suite's credential and of a bystander's. */
  seed: { path: string; body: unknown; own: Record<string, string>; bystander: Record<string, string> };
}

const CASES: Case[] = [
  {
    name: "petstore",
    file: PETSTORE,
    apiKey: "suite-token",
    operations: 19,
    roundTrips: ["addPet.round-trip", "placeOrder.round-trip", "createUser.round-trip"],
    seed: {
      path: "/pet",
      body: { name: "before-the-run", photoUrls: [], status: "sold" },
      own: bearer("suite-token"),
      bystander: bearer("bystander"),
    },
  },
  {
    name: "museum",
    file: MUSEUM,
    apiKey: "suite:secret",
    operations: 8,
    roundTrips: ["createSpecialEvent.round-trip"],
    seed: {
      path: "/special-events",
      body: { name: "Before", location: "Hall", eventDescription: "Made first.", dates: ["2030-01-01"], price: 1 },
      own: basic("suite", "secret"),
      bystander: basic("bystander", "pw"),
    },
  },
];

const TARGETS = [
  { target: "mock", args: [] as string[] },
  { target: "foreign", args: ["--target", "foreign"] },
];

/** Makes the case's seed record with each of `headers`, under the document's base path. */
async function makeSeeds(url: string, { file, seed }: Case): Promise<void> {
  const root = `${url}${basePath(loadDocument(file))}`;
  for (const headers of [seed.own, seed.bystander]) {
    const made = await fetch(`${root}${seed.path}`, {
      method: "POST",
      headers: { ...headers, "Content-Type": "application/json" },
      body: JSON.stringify(seed.body),
    });
    expect(made.status).toBeLessThan(300);
  }
}

const passedOf = (json: { results: { outcome: string; id: string; operationId: string }[] }) =>
  json.results.filter((r) => r.outcome === "passed");

describe.each(CASES)("npm run conformance -- --spec $name", (spec) => {
  it.each(TARGETS)(
    "passes against the kit serving it as $target, with generic rules, leaving nothing",
    async ({ target, args }) => {
      const mock = await startMock({ spec: spec.file, log: () => undefined });
      try {
        // One record in the suite's own workspace and one in another's: the run leaves both as they were.
        await makeSeeds(mock.url, spec);
        const before = recordsLeft(mock.mock.services.workspaces.list());
        expect(Object.keys(before)).toHaveLength(2);

        const report = join(work, `${spec.name}-${target}.json`);
        const ledger = join(work, `${spec.name}-${target}.ledger`);
        const lines: string[] = [];
        const { code } = await main(
          [
            "--spec",
            spec.file,
            "--base-url",
            mock.url,
            "--api-key",
            spec.apiKey,
            "--json",
            report,
            "--ledger",
            ledger,
            ...args,
          ],
          {},
          { out: (t) => lines.push(t), err: (t) => lines.push(t) },
        );
        expect(code, lines.join("\n")).toBe(0);

        const json = JSON.parse(readFileSync(report, "utf8"));
        expect(json.isMock).toBe(target === "mock");
        expect(json.summary).toMatchObject({ verdict: "pass", failed: 0, errored: 0 });
        expect(json.operations).toHaveLength(spec.operations);
        expect(json.operations.filter((op: { rules: string }) => op.rules !== "generic")).toEqual([]);
        expect(passedOf(json).map((r) => r.id)).toEqual(expect.arrayContaining(spec.roundTrips));
        // Every operation has at least one rule that ran and passed.
        expect(new Set(passedOf(json).map((r) => r.operationId)).size).toBe(spec.operations);
        expect(recordsLeft(mock.mock.services.workspaces.list())).toEqual(before);
      } finally {
        await mock.close();
      }
    },
  );
});

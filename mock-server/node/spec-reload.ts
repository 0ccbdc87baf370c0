/**
 * Reloads the mock's spec in place (npm start -- --watch) from what `npm run generate` just wrote:
 * the document and the validators are imported again, installed together as the mock's new contract
 * (Mock.installSpec), and the stored records made to fit them (control/spec-fit.ts). Everything runs
 * synchronously from the install on, so no request is served between the new spec and the state that
 * fits it.
 *
 * The modules are imported relative to this file, so the sources (mock-server/node -> generated/)
 * and the compiled tree (dist/mock-server/node -> dist/generated/) each load their own copy. A query
 * string makes Node import a module again; each import stays in memory (ESM has no unload), about
 * 1 MB per reload, which a development session can afford.
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { fitWorkspaces, type WorkspaceFit } from "../control/spec-fit.js";
import type { GeneratedSpec } from "../core/spec.js";
import type { Mock } from "../mock/mock.js";
import { handlers } from "../routes/index.js";
import { recordCheck } from "../store/record-checks.js";

const MODULES = ["openapi-document.js", "validators.js"] as const;
const generatedUrl = (name: string) => new URL(`../../generated/${name}`, import.meta.url);

export interface ReloadReport {
  operations: number;
  added: string[];
  removed: string[];
  /** Added operations without a hand-written handler: the generic layer serves them from the document. */
  generic: string[];
  fits: WorkspaceFit[];
}

/** A fingerprint of the generated modules on disk: the same fingerprint, the same spec. */
export async function generatedFingerprint(): Promise<string> {
  const hash = createHash("sha256");
  for (const name of MODULES) hash.update(await readFile(generatedUrl(name)));
  return hash.digest("hex");
}

let imports = 0;

async function importGenerated(): Promise<GeneratedSpec> {
  const version = ++imports;
  const [document, validators] = await Promise.all(
    MODULES.map((name) => import(`${generatedUrl(name).href}?v=${version}`)),
  );
  return {
    document: document.default,
    validators: { operationValidators: validators.operationValidators, schemaValidators: validators.schemaValidators },
  };
}

/** Installs the generated spec in `mock` and fits its state to it; throws (the previous spec still in use) if the mock cannot use it. */
export async function reloadSpec(mock: Pick<Mock, "contract" | "installSpec" | "services">): Promise<ReloadReport> {
  const next = await importGenerated();
  const before = new Set<string>(mock.contract().operations.map((op) => op.operationId));
  const contract = mock.installSpec(next);
  const after = new Set<string>(contract.operations.map((op) => op.operationId));
  const added = [...after].filter((id) => !before.has(id));
  return {
    operations: after.size,
    added,
    removed: [...before].filter((id) => !after.has(id)),
    generic: added.filter((id) => !Object.hasOwn(handlers, id)),
    fits: fitWorkspaces(mock.services.workspaces, recordCheck(contract)),
  };
}

/**
 * A run on another document (--spec): none of this API's fixtures (no agents to discover, no control
 * plane to fill a workspace through); the generic rules find or make the records they need, and what
 * they make for the whole run is deleted when it ends (`undo`). The key is checked once first, on a
 * read of the document that requires a credential.
 */
import { dateHeader } from "../fixtures/discover.js";
import type { Fixtures } from "../fixtures/types.js";
import { requiresCredential } from "../lib/credentials.js";
import type { SuiteDocument } from "../lib/document.js";
import { pathPrefix } from "../lib/document.js";
import { send, type Target } from "../lib/http.js";
import { credentialFor, parametersOf, pathWith, requiredParts } from "./requests.js";

export function documentFixtures(runId: string, opts: { isMock: boolean; readOnly: boolean }): Fixtures {
  const fixtures: Fixtures = {
    isMock: opts.isMock,
    readOnly: opts.readOnly,
    runId,
    testCaseIds: [],
    known: {},
    ledger: [],
    notCovered: [],
    serverNow: async (exchange) => dateHeader(exchange),
    advanceClock: async () => false,
    undo: [],
    async cleanup() {
      for (const undo of fixtures.undo.reverse()) await undo().catch(() => undefined);
    },
  };
  return fixtures;
}

/**
 * One request before the rules, as `checkKey` sends for this API: the first GET of the document that
 * takes no path parameter and requires a credential. A 401 or 403 is a setup mistake (exit 2), not a
 * failure of every rule. Without such an operation nothing is sent.
 */
export async function checkDocumentKey(
  document: SuiteDocument,
  target: Target,
  CannotStart: new (message: string) => Error,
): Promise<void> {
  const op = [...document.operations.values()].find(
    (o) =>
      o.method === "GET" &&
      !parametersOf(document, o).some((p) => p.in === "path") &&
      requiresCredential(document.doc, o.path, o.method),
  );
  if (!op) return;
  const parts = requiredParts(document, op, { seed: 1, marker: "conformance" });
  if (parts.problem) return;
  const path = pathWith(pathPrefix(document, target.baseUrl), op.path, {});
  const exchange = await send(target, {
    method: "GET",
    path,
    query: parts.query,
    headers: parts.headers,
    ...credentialFor(document, op),
  });
  if (exchange.status === 401 || exchange.status === 403)
    throw new CannotStart(
      `the target refuses --api-key (GET ${path} answered ${exchange.status}): check the key, and that it goes where ${document.source} says (${op.operationId}'s security)`,
    );
}

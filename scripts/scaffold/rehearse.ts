/**
 * The scaffold's rehearsal: the generic layer answers the sample request on a fresh workspace, as the
 * new handler will (it starts as that answer), so the test can expect that status. A request about one
 * record of a collection (read, change, delete) first gets a record to be about, made by the
 * collection's own create: the test puts that record in the workspace before it runs the handler.
 */
import type { Contract } from "../../mock-server/core/contract.js";
import { toApiError } from "../../mock-server/core/errors.js";
import type { Operation } from "../../mock-server/core/operations.js";
import { decisionOf, type GenericHandler, genericHandler } from "../../mock-server/generic/index.js";
import { createMock } from "../../mock-server/mock/mock.js";
import type { Workspace } from "../../mock-server/store/workspace.js";
import { type SampleRequest, sampleRequest } from "./sample-request.js";

/** A record the test puts in the workspace first: in `workspace.generic.collection(collection, idField)`. */
export interface Given {
  collection: string;
  idField: string;
  record: Record<string, unknown>;
  /** The create that made it. */
  madeBy: string;
}

export interface Rehearsal {
  /** The status the test expects, and what it means for the author. */
  expected: { status: number; why: string };
  given?: Given;
}

export const FRESH_WORKSPACE = {
  workspaceId: "scaffolded",
  apiKey: "scaffolded-api-key",
  seed: 1,
  empty: true,
  readOnly: false,
} as const;

export const CLOCK_START = "2026-01-01T00:00:00.000Z";

/** Rehearses `request` (its path may be changed to name the record made for it). */
export async function rehearse(contract: Contract, op: Operation, request: SampleRequest): Promise<Rehearsal> {
  const mock = createMock({ clock: { mode: "virtual", start: new Date(CLOCK_START) }, log: () => {} });
  try {
    await mock.joined;
    const { services } = mock;
    const workspace = services.workspaces.add({ ...FRESH_WORKSPACE });
    const run = async (target: Operation, sent: SampleRequest) => {
      const parts = structuredClone({ path: sent.path, query: sent.query });
      target.validateParams(parts);
      const ctx = { workspace, params: parts.path, query: parts.query, body: structuredClone(sent.body), services };
      const handler: GenericHandler = genericHandler(contract, target);
      // A promise either way: the memory store answers at once, and throws what the handler throws.
      return Promise.resolve()
        .then(() => services.workspaces.transact(workspace, () => handler(ctx)))
        .then(
          (reply) => reply.status,
          (error) => toApiError(error).status,
        );
    };
    const given = await recordFor(contract, op, request, workspace, run);
    const status = await run(op, request);
    const success = op.successStatus;
    if (status === success)
      return {
        expected: {
          status,
          why: "The generic layer's answer (the handler's until it is filled in): the documented success.",
        },
        ...(given && { given }),
      };
    if (status === 404)
      return {
        expected: {
          status,
          why: `A fresh workspace holds no record of this id: the documented 404. Put the record there first (workspace.generic) and expect ${success}.`,
        },
      };
    return { expected: { status, why: "The generic layer's answer to this request on a fresh workspace." } };
  } finally {
    await mock.close();
  }
}

/** For a read, change or delete of one record by its path: a record made by the collection's create. */
async function recordFor(
  contract: Contract,
  op: Operation,
  request: SampleRequest,
  workspace: Workspace,
  run: (op: Operation, request: SampleRequest) => Promise<number>,
): Promise<Given | undefined> {
  const decision = decisionOf(contract, op.operationId);
  if (decision.kind !== "collection" || decision.idFrom !== "path" || decision.role === "list") return undefined;
  const { collection } = decision;
  const create = collection.operations.find((o) => o.role === "create");
  if (!create || !collection.itemParam) return undefined;
  const createOp = contract.operation(create.operationId);
  const sent = sampleRequest(contract, createOp);
  const status = await run(createOp, sent);
  if (status < 200 || status >= 300) return undefined;
  const record = workspace.generic.collection(collection.name, collection.idField).all().at(-1);
  if (!record) return undefined;
  request.path[collection.itemParam] = String(record[collection.idField]);
  // A nested collection's item path names its parent as the create's did.
  for (const parent of collection.parentParams)
    if (sent.path[parent] !== undefined) request.path[parent] = sent.path[parent]!;
  return { collection: collection.name, idField: collection.idField, record, madeBy: create.operationId };
}

/**
 * Control plane, the generic layer's fixtures (GET /__mock/workspaces/{id}/generic, and GET and POST
 * /__mock/workspaces/{id}/generic/{collection}): the collections the generic layer keeps for the
 * document the mock serves, their records, and records filled from a partial as the collection's own
 * create fills them (generic/fill.ts), checked against the record's schema before they are stored.
 */
import type { Contract } from "../core/contract.js";
import { ApiError, invalid } from "../core/errors.js";
import { toValidationErrors } from "../core/validation.js";
import { type CollectionPlan, describeGeneric, type FillContext, newRecord, planOf } from "../generic/index.js";
import { handlers } from "../routes/index.js";
import type { GenericRecord } from "../store/generic-records.js";
import type { Workspace } from "../store/workspace.js";
import type { ControlHandlers, ControlServices } from "./types.js";
import { workspaceOf } from "./workspaces.js";

type GenericOperation = "listGenericCollections" | "listGenericRecords" | "createGenericRecord";

export function genericRecordHandlers({ workspaces, contract }: ControlServices): ControlHandlers<GenericOperation> {
  return {
    listGenericCollections: {
      handle: ({ params }) => {
        const workspace = workspaceOf(workspaces, params.workspaceId);
        return {
          status: 200,
          body: genericCollections(contract()).map((plan) => ({
            name: plan.name,
            idField: plan.idField,
            count: recordsOf(workspace, plan).size,
          })),
        };
      },
    },

    listGenericRecords: {
      handle: ({ params }) => {
        const workspace = workspaceOf(workspaces, params.workspaceId);
        const plan = collectionNamed(contract(), params.collection);
        // Kept oldest first, as the collection's list reads them: newest first here as there.
        return { status: 200, body: recordsOf(workspace, plan).all().reverse() };
      },
    },

    createGenericRecord: {
      handle: ({ params, body }) => {
        const workspace = workspaceOf(workspaces, params.workspaceId);
        const served = contract();
        const plan = collectionNamed(served, params.collection);
        return { status: 201, body: createRecord(served, workspace, plan, body ?? {}) };
      },
    },
  };
}

/**
 * The collections the generic layer keeps for `contract`: those of its plan with an operation no
 * hand-written handler serves (as the pipeline chooses: a handler wins, and only on the kit's own spec).
 */
export function genericCollections(contract: Contract): CollectionPlan[] {
  const handled = (id: string) => contract.handwritten && Object.hasOwn(handlers, id);
  const served = new Set(describeGeneric(contract, handled).collections.map((c) => c.name));
  return planOf(contract).collections.filter((plan) => served.has(plan.name));
}

function collectionNamed(contract: Contract, name: string): CollectionPlan {
  const plan = genericCollections(contract).find((c) => c.name === name);
  if (plan) return plan;
  const names = genericCollections(contract).map((c) => c.name);
  throw new ApiError(
    404,
    `Unknown generic collection ${name}: ${names.length > 0 ? `the document's are ${names.join(", ")}` : "the generic layer keeps none for this document"}`,
  );
}

const recordsOf = (workspace: Workspace, plan: CollectionPlan) => workspace.generic.collection(plan.name, plan.idField);

/** Fills, checks and stores a record of `plan` from a partial; refused (400, 409) it stores nothing. */
function createRecord(
  contract: Contract,
  workspace: Workspace,
  plan: CollectionPlan,
  partial: Record<string, unknown>,
): GenericRecord {
  const records = recordsOf(workspace, plan);
  const taken = (id: unknown) => id !== undefined && id !== null && records.has(String(id));
  const given = partial[plan.idField];
  if (taken(given))
    throw new ApiError(409, `${plan.name} already holds a record with ${plan.idField} ${String(given)}`);
  const fill: FillContext = {
    plan,
    deref: (node) => contract.deref(node),
    rule: planOf(contract).recordRule,
    records,
    workspace,
    params: {},
  };
  const record = newRecord(fill, partial);
  if (plan.recordCheck && !plan.recordCheck(record)) {
    const errors = toValidationErrors((plan.recordErrors?.() ?? []) as Parameters<typeof toValidationErrors>[0]);
    throw invalid(Object.keys(errors).length > 0 ? errors : { body: "is invalid" }, `Not a valid ${plan.label} record`);
  }
  records.create(record);
  return record;
}

/**
 * Who may call the control plane (spec/mock-control.yaml, its security): without a control token,
 * anyone who reaches the mock (a developer's loopback). With one (`--control-token`), every operation
 * but health, readiness and metrics needs `Authorization: Bearer <token>` (the whole mock) or a
 * workspace's own `X-API-Key` (that workspace only). A key's caller is scoped: a workspace named in the
 * path, the query or the body must be its own (another answers 404, as the API does for another
 * workspace's record), a filter or target that names none means its own, and the handlers of lists and
 * of objects found by id (a fault, a delivery, a journaled request) keep to `input.scope`.
 *
 * The token is compared by its SHA-256 digest, byte by byte without an early exit, so the time taken
 * says nothing about how much of a guess was right. Neither secret is ever put in an error message.
 */
import type { ControlInput, ControlOperationId } from "../core/control-operations.js";
import { ApiError } from "../core/errors.js";
import { sha256 } from "../core/portable-crypto.js";
import type { Store } from "../store/store.js";
import type { Workspace } from "../store/workspace.js";
import { workspaceNotFound } from "./workspaces.js";

/**
 * How an operation is guarded:
 *  - open: no secret (nothing in it to protect);
 *  - mock: the token only (it acts on every workspace);
 *  - path / query / body: a key names its workspace there (absent in query or body: its own);
 *  - scoped: the handler keeps to `input.scope` (lists, objects found by their own id);
 *  - any: a key may call it and it holds nothing of a workspace.
 * A Record over every operation: a new operation in the spec does not compile until it is given one.
 */
type Guard = "open" | "mock" | "path" | "query" | "body" | "scoped" | "any";

export const GUARDS: Record<ControlOperationId, Guard> = {
  getHealth: "open",
  getReady: "open",
  getMetrics: "open",
  resetMock: "mock",
  createWorkspace: "mock",
  listWorkspaces: "scoped",
  deleteWorkspace: "path",
  resetWorkspace: "path",
  exportSnapshot: "path",
  importSnapshot: "path",
  listRecords: "path",
  createRecord: "path",
  listGenericCollections: "path",
  listGenericRecords: "path",
  createGenericRecord: "path",
  getClock: "query",
  advanceClock: "body",
  listRequests: "query",
  countRequests: "query",
  exportHar: "query",
  clearRequests: "scoped",
  getCoverage: "query",
  listDriftFindings: "query",
  createFault: "body",
  listFaults: "scoped",
  clearFaults: "scoped",
  deleteFault: "scoped",
  listWebhookDeliveries: "scoped",
  getRequest: "scoped",
  streamEvents: "query",
  listOperations: "any",
  redeliverWebhook: "scoped",
};

/** Who is calling: the whole mock (the token, or no token configured), or one workspace (its key). */
export type Caller = { scope: undefined } | { scope: string; workspace: Workspace };

const WHOLE_MOCK: Caller = { scope: undefined };

const encoder = new TextEncoder();

/** Equal digests, compared without stopping at the first difference. */
function sameSecret(expected: Uint8Array, given: string): boolean {
  const digest = sha256(encoder.encode(given));
  let difference = 0;
  for (let i = 0; i < expected.length; i++) difference |= expected[i] ^ digest[i];
  return difference === 0;
}

export interface ControlAccess {
  /** The caller of a request to `operationId`, from its headers; 401 when it may not call it at all. */
  callerOf(operationId: ControlOperationId, headers: Record<string, string | string[] | undefined>): Promise<Caller>;
  /** The input as the caller may send it: its workspace filled in, or 404 for another's. */
  scope(operationId: ControlOperationId, input: ControlInput, caller: Caller): ControlInput;
}

export function controlAccess(store: Pick<Store, "authenticate">, token: string | undefined): ControlAccess {
  const expected = token === undefined ? undefined : sha256(encoder.encode(token));
  return {
    async callerOf(operationId, headers) {
      const guard = GUARDS[operationId];
      if (!expected || guard === "open") return WHOLE_MOCK;
      const authorization = headers.authorization;
      if (typeof authorization === "string" && authorization.length > 0) {
        const bearer = /^Bearer\s+(.+)$/i.exec(authorization.trim());
        if (!bearer) throw new ApiError(401, "The control plane takes Authorization: Bearer <control token>");
        if (!sameSecret(expected, bearer[1])) throw new ApiError(401, "The control token is not valid");
        return WHOLE_MOCK;
      }
      const key = headers["x-api-key"];
      if (typeof key !== "string" || key.length === 0)
        throw new ApiError(
          401,
          "The control plane needs Authorization: Bearer <control token>, or a workspace's X-API-Key for that workspace",
        );
      const workspace = await store.authenticate(key);
      if (!workspace) throw new ApiError(401, "API key is invalid");
      if (guard === "mock")
        throw new ApiError(401, "This acts on every workspace: it needs the control token, not a workspace's key");
      return { scope: workspace.workspaceId, workspace };
    },

    scope(operationId, input, caller) {
      if (caller.scope === undefined) return input;
      const own = caller.scope;
      // Named another workspace: answered as the API answers for what is not the key's to see.
      const mustBeOwn = (named: unknown) => {
        if (named !== undefined && named !== own) throw workspaceNotFound(String(named));
      };
      const scoped = { ...input, scope: own };
      switch (GUARDS[operationId]) {
        case "path":
          mustBeOwn((input.params as { workspaceId?: string }).workspaceId);
          return scoped;
        case "query": {
          const query = input.query as { workspaceId?: string };
          mustBeOwn(query.workspaceId);
          return { ...scoped, query: { ...query, workspaceId: own } as ControlInput["query"] };
        }
        case "body": {
          const body = (input.body ?? {}) as { workspaceId?: string };
          mustBeOwn(body.workspaceId);
          return { ...scoped, body: { ...body, workspaceId: own } as ControlInput["body"] };
        }
        default:
          return scoped;
      }
    },
  };
}

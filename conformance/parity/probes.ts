/**
 * The requests parity sends to both targets besides the suite, as data. Each names its operation and
 * a label the same on both targets, so their answers pair up. Invalid inputs (a bad page or size, a
 * malformed or unknown id, a wrong type or a missing field in a body, an id of another workspace) are
 * what a target should refuse: nothing is created or changed when it does, and the bodies carry the
 * run's name, so a target that wrongly accepts one leaves a record a person can find (it is listed).
 * Writes are left out under --read-only.
 */
import type { RequestSpec } from "../lib/http.js";

/** Ids and records found on one target (its lists, the defaults probe's integration, the second key's lists). */
export interface Found {
  runId: string;
  callIds: string[];
  batchIds: string[];
  agentIds: string[];
  /** The integration the defaults probe created (not under --read-only). */
  integrationId?: string;
  /** Records of the second key's workspace, when there is a second key. */
  other?: { callId?: string; batchId?: string; phoneNumber?: string };
}

export interface InvalidInput {
  operationId: string;
  /** Short and the same on both targets: `size=0`, `unknown id`. */
  label: string;
  /** The parameter or body field the input is wrong in: does the error answer name it? */
  field?: string;
  /** The id the request carries: does the message echo it? */
  id?: string;
  /** It sends a write (POST, PATCH, DELETE): left out under --read-only. */
  writes: boolean;
  /** What it needs from `Found`; without it, the probe is not sent and says why. */
  needs?: "integration" | "other";
  request(found: Found): RequestSpec | undefined;
}

/** No record has this id (a UUID of zeros): the answer to an unknown id. */
export const UNKNOWN_ID = "00000000-0000-4000-8000-000000000000";
/** Longer than any id the kit assumes (1 to 128 characters): a malformed id. */
export const LONG_ID = "x".repeat(200);
/** E.164 in form, assigned to no one (country code 999). */
const UNKNOWN_NUMBER = "+99900000001";

const enc = encodeURIComponent;

export const LISTS: { operationId: string; path: string }[] = [
  { operationId: "listAgents", path: "/v1/agents" },
  { operationId: "listTestRuns", path: "/v1/test-runs" },
  { operationId: "listCalls", path: "/v1/calls" },
  { operationId: "listPhoneNumbers", path: "/v1/phone-number" },
  { operationId: "listWebhooks", path: "/v1/webhooks" },
];

/** Bad page and size on every list, and its filters' wrong values. */
function listInputs(): InvalidInput[] {
  const filters: Record<string, [string, string, string][]> = {
    listCalls: [["status=bogus", "status", "bogus"]],
    listWebhooks: [["active=maybe", "active", "maybe"]],
    listTestRuns: [["batchId of 200 characters", "batchId", LONG_ID]],
  };
  return LISTS.flatMap(({ operationId, path }) => {
    const get = (label: string, field: string, value: string): InvalidInput => ({
      operationId,
      label,
      field,
      writes: false,
      request: () => ({ method: "GET", path, query: { [field]: value } }),
    });
    return [
      get("page=-1", "page", "-1"),
      get("page=abc", "page", "abc"),
      get("size=0", "size", "0"),
      get("size=abc", "size", "abc"),
      ...(filters[operationId] ?? []).map(([label, field, value]) => get(label, field, value)),
    ];
  });
}

interface ById {
  operationId: string;
  method: string;
  param: string;
  path(id: string): string;
  body?: unknown;
}

/** Operations addressed by an id: an unknown id and a malformed one. Writes send what changes nothing. */
const BY_ID: ById[] = [
  { operationId: "getIntegration", method: "GET", param: "integrationId", path: (id) => `/v1/integrations/${id}` },
  {
    operationId: "updateIntegration",
    method: "PATCH",
    param: "integrationId",
    path: (id) => `/v1/integrations/${id}`,
    body: {},
  },
  {
    operationId: "createIntegrationAuth",
    method: "POST",
    param: "integrationId",
    path: (id) => `/v1/integrations/${id}/auth`,
    body: { authType: "NONE" },
  },
  { operationId: "getBatchRun", method: "GET", param: "batchId", path: (id) => `/v1/batch-runs/${id}` },
  { operationId: "getCall", method: "GET", param: "callId", path: (id) => `/v1/calls/${id}` },
  { operationId: "getQaRule", method: "GET", param: "qaRuleId", path: (id) => `/v1/qa-rules/${id}` },
  { operationId: "deleteQaRule", method: "DELETE", param: "qaRuleId", path: (id) => `/v1/qa-rules/${id}` },
];

function idInputs(): InvalidInput[] {
  const byId = BY_ID.flatMap((op): InvalidInput[] => {
    const writes = op.method !== "GET";
    const make = (label: string, id: string, field?: string): InvalidInput => ({
      operationId: op.operationId,
      label,
      id,
      field,
      writes,
      request: () => ({ method: op.method, path: op.path(enc(id)), body: op.body }),
    });
    return [make("unknown id", UNKNOWN_ID), make("id of 200 characters", LONG_ID, op.param)];
  });
  const phone = (label: string, number: string, field?: string): InvalidInput => ({
    operationId: "updatePhoneNumber",
    label,
    id: number,
    field,
    writes: true,
    // An empty partial update: it changes nothing even on a number that exists.
    request: () => ({ method: "PATCH", path: `/v1/phone-number/${enc(number)}`, body: {} }),
  });
  return [...byId, phone("unknown number", UNKNOWN_NUMBER), phone("not E.164", "not-a-number", "phoneNumber")];
}

/** Bodies with a field missing or of the wrong type; a form with a file type E9 does not take. */
function bodyInputs(): InvalidInput[] {
  const post = (
    operationId: string,
    path: string,
    label: string,
    field: string,
    body: (f: Found) => unknown,
  ): InvalidInput => ({
    operationId,
    label,
    field,
    writes: true,
    request: (f) => ({ method: "POST", path, body: body(f) }),
  });
  const note = (f: Found) => `parity probe of ${f.runId}`;
  const kb = (label: string, field: string | undefined, fill: (form: FormData, f: Found) => void): InvalidInput => ({
    operationId: "createKnowledgeBase",
    label,
    field,
    writes: true,
    request: (f) => {
      const form = new FormData();
      fill(form, f);
      return { method: "POST", path: "/v1/knowledge-bases", body: form };
    },
  });
  return [
    post("createIntegration", "/v1/integrations", "name missing", "name", (f) => ({ description: note(f) })),
    post("createIntegration", "/v1/integrations", "name a number", "name", () => ({ name: 42 })),
    {
      operationId: "createIntegration",
      label: "body not JSON",
      writes: true,
      request: () => ({
        method: "POST",
        path: "/v1/integrations",
        rawBody: "{not json",
        headers: { "Content-Type": "application/json" },
      }),
    },
    {
      operationId: "updateIntegration",
      label: "name a number",
      field: "name",
      writes: true,
      needs: "integration",
      request: (f) =>
        f.integrationId
          ? { method: "PATCH", path: `/v1/integrations/${enc(f.integrationId)}`, body: { name: 42 } }
          : undefined,
    },
    {
      operationId: "createIntegrationAuth",
      label: "authType not one of the values",
      field: "authType",
      writes: true,
      needs: "integration",
      request: (f) =>
        f.integrationId
          ? { method: "POST", path: `/v1/integrations/${enc(f.integrationId)}/auth`, body: { authType: "PARITY" } }
          : undefined,
    },
    post("createBatchRun", "/v1/batch-runs", "agentId missing", "agentId", () => ({ testCases: [UNKNOWN_ID] })),
    post("createBatchRun", "/v1/batch-runs", "testCases not an array", "testCases", (f) => ({
      agentId: f.agentIds[0] ?? UNKNOWN_ID,
      testCases: "x",
    })),
    post("createChat", "/v1/chat", "agentId missing", "agentId", (f) => ({ conversation: note(f) })),
    post("createChat", "/v1/chat", "agentId a number", "agentId", (f) => ({ agentId: 42, conversation: note(f) })),
    kb("file type not allowed", undefined, (form, f) => {
      form.set("name", note(f));
      form.append(
        "knowledge_base_files",
        new File([new Uint8Array([0x4d, 0x5a, 0x90, 0x00])], "parity.exe", { type: "application/x-msdownload" }),
      );
    }),
    kb("name missing", "name", (form) => form.set("knowledge_base_texts", JSON.stringify(["parity probe"]))),
  ];
}

/** Another workspace's record through the run's key: 403 or 404, never served. */
function isolationInputs(): InvalidInput[] {
  const other = (
    operationId: string,
    label: string,
    pick: (o: NonNullable<Found["other"]>) => string | undefined,
    spec: (id: string) => RequestSpec,
    writes = false,
  ): InvalidInput => ({
    operationId,
    label,
    writes,
    needs: "other",
    request: (f) => {
      const id = f.other ? pick(f.other) : undefined;
      return id ? spec(id) : undefined;
    },
  });
  return [
    other(
      "getCall",
      "a call of another workspace",
      (o) => o.callId,
      (id) => ({ method: "GET", path: `/v1/calls/${enc(id)}` }),
    ),
    other(
      "getBatchRun",
      "a batch run of another workspace",
      (o) => o.batchId,
      (id) => ({ method: "GET", path: `/v1/batch-runs/${enc(id)}` }),
    ),
    other(
      "updatePhoneNumber",
      "a number of another workspace",
      (o) => o.phoneNumber,
      // An empty partial update: a target that wrongly serves it still changes nothing.
      (id) => ({ method: "PATCH", path: `/v1/phone-number/${enc(id)}`, body: {} }),
      true,
    ),
  ];
}

/** Every invalid input, in the spec's operation order within each family. */
export function invalidInputs(): InvalidInput[] {
  return [...listInputs(), ...idInputs(), ...bodyInputs(), ...isolationInputs()];
}

/** What a create operation leaves on a target when it accepts a probe: the kind and where its id is. */
export const CREATES: Record<string, { kind: string; idField: string }> = {
  createIntegration: { kind: "integration", idField: "integrationId" },
  createBatchRun: { kind: "batch run", idField: "batchId" },
  createKnowledgeBase: { kind: "knowledge base", idField: "kbId" },
  createChat: { kind: "chat", idField: "id" },
};

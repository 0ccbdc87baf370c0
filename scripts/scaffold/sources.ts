/**
 * The two files `npm run scaffold` writes beside the handlers: the handler, which starts as the generic
 * layer's answer, and its unit test, which runs it on a fresh workspace and checks the reply against the
 * spec. Biome formats both afterwards, so the text here only has to be valid TypeScript.
 */
import type { Operation } from "../../mock-server/core/operations.js";
import { CLOCK_START, FRESH_WORKSPACE, type Given } from "./rehearse.js";
import type { SampleRequest } from "./sample-request.js";

export interface Scaffold {
  op: Operation;
  summary: string | undefined;
  /** The file's name without `.ts` (kebab case of the operation id). */
  file: string;
  /** The handler table's exported name. */
  exportName: string;
  request: SampleRequest;
  /** The status the generic layer answers the request with, and what that means for the author. */
  expected: { status: number; why: string };
  /** A record the test puts in the workspace first (the one a read, change or delete is about). */
  given?: Given;
}

/** An object key or a quoted string, as the id needs. */
export const keyOf = (id: string) => (/^[A-Za-z_$][\w$]*$/.test(id) ? id : JSON.stringify(id));

const json = (value: unknown) => JSON.stringify(value, null, 2);

export function handlerSource(s: Scaffold): string {
  const { op } = s;
  const id = JSON.stringify(op.operationId);
  return `/**
 * ${op.operationId} (${op.method.toUpperCase()} ${op.path})${s.summary ? `: ${s.summary}` : ""}.
 * Scaffolded by \`npm run scaffold -- ${op.operationId}\`: until it is filled in, it answers what the
 * generic layer answered before (mock-server/docs/generic-layer.md). Its unit test is ${s.file}.test.ts.
 */
import type { HandlerTable } from "./context.js";
import { genericAnswer } from "./generic-answer.js";

export const ${s.exportName}: HandlerTable<${id}> = {
  ${keyOf(op.operationId)}: ({ workspace, params, query, body, services }) => {
    // Fill in: params, query and body are typed from the spec and already validated against it (query
    // with its defaults). Read and change the workspace's records (workspace.generic holds the
    // collections the generic layer keeps, workspace.collections the reference operations' own), throw
    // an ApiError (core/errors.ts) for a documented error, and return { status, body } as the spec
    // documents it: the mock checks every reply against the spec on the way out. Until then:
    return genericAnswer(${id}, { workspace, params, query, body, services });
  },
};
`;
}

export function testSource(s: Scaffold): string {
  const { op, request, expected } = s;
  const id = JSON.stringify(op.operationId);
  const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(request.path[name] ?? ""));
  return `/**
 * The unit test of ${op.operationId}'s handler (${s.file}.ts), scaffolded by \`npm run scaffold -- ${op.operationId}\`:
 * the handler runs on a fresh workspace with the request below, as the mock's pipeline runs it (the
 * request checked against the spec first), and its reply is checked against the spec's documented
 * response. Change the request and what is expected as the handler grows.
 */
import { afterAll, describe, expect, it } from "vitest";
import { errorBody, toApiError } from "../core/errors.js";
import { EMPTY_FORM } from "../core/uploads.js";
import { replyDrift } from "../core/validation.js";
import { createMock } from "../mock/mock.js";
import type { Workspace } from "../store/workspace.js";
import type { Reply, RequestContext } from "./context.js";
import { ${s.exportName} } from "./${s.file}.js";

const mock = createMock({ clock: { mode: "virtual", start: new Date(${JSON.stringify(CLOCK_START)}) }, log: () => undefined });
afterAll(() => mock.close());

/** The handler's reply, or the error reply the pipeline makes of what it throws. */
async function answer(workspace: Workspace, run: () => Reply | Promise<Reply>): Promise<Reply> {
  try {
    return await mock.services.workspaces.transact(workspace, run);
  } catch (error) {
    const { status, message, validationErrors } = toApiError(error);
    return { status, body: errorBody(workspace.clock, ${JSON.stringify(path)}, status, message, validationErrors) };
  }
}

describe(${JSON.stringify(`${op.operationId} (${op.method.toUpperCase()} ${op.path})`)}, () => {
  it(${JSON.stringify(`answers ${expected.status} with the body the spec documents`)}, async () => {
    await mock.joined;
    const { services } = mock;
    const op = services.contract().operation(${id});
    const workspace = services.workspaces.add(${json(FRESH_WORKSPACE)});${givenSource(s.given)}
    // Path and query values as the URL carries them: the validator coerces them and fills defaults.
    const target: { path: Record<string, unknown>; query: Record<string, unknown> } = {
      path: ${json(request.path)},
      query: ${json(request.query)},
    };
    expect(op.validateParams(target), "the request's parameters fit the spec").toBe(true);
    const body: RequestContext<${id}>["body"] = ${request.body === undefined ? "undefined" : json(request.body)};${
      request.body === undefined
        ? ""
        : `\n    expect(op.validateBody!(body), "the request's body fits the spec").toBe(true);`
    }
    const ctx = { workspace, params: target.path, query: target.query, body, form: EMPTY_FORM, services };
    const reply = await answer(workspace, () => ${s.exportName}${accessor(op.operationId)}(ctx as RequestContext<${id}>));
    // ${expected.why}
    expect(reply.status).toBe(${expected.status});
    const documented = op.responses.get(reply.status);
    expect(replyDrift(reply, documented?.check, () => documented?.errors() ?? [])).toBeUndefined();
  });
});
`;
}

/** The test's first step when the request is about one record: the record, where the generic layer keeps it. */
function givenSource(given: Given | undefined): string {
  if (!given) return "";
  return `
    // The record the request is about, as ${given.madeBy} made it, where the generic layer keeps the
    // collection (a handler that keeps its records elsewhere puts it there instead).
    await services.workspaces.transact(workspace, () =>
      workspace.generic.collection(${JSON.stringify(given.collection)}, ${JSON.stringify(given.idField)}).create(${json(given.record)}),
    );`;
}

/** `.listThings` or `["list.things"]`. */
function accessor(id: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(id) ? `.${id}` : `[${JSON.stringify(id)}]`;
}

/**
 * The /__mock control plane (spec/mock-control.yaml): health, reset, workspaces, fixtures, the clock,
 * the request journal and the webhook outbox. No API key: it exists only on the mock. Routes of the
 * core like the operations, so every door serves them alike.
 */
import type { Clock } from "../clock.js";
import { DEFAULT_WORKSPACE_ID } from "../defaults.js";
import { ApiError, invalid } from "../core/errors.js";
import type { Journal } from "../core/journal.js";
import type { Reply, Services } from "../core/context.js";
import { collectionNames, type CollectionName } from "../store/records.js";
import type { Workspace } from "../store/workspace.js";
import { buildRecord, createBuildContext, recountBatch } from "../seed/index.js";
import { recordErrors } from "./record-checks.js";
import { exportSnapshot, importSnapshot } from "./snapshot.js";

export interface ControlRequest {
  params: Record<string, string>;
  query: URLSearchParams;
  /** The parsed JSON body; undefined when none (or no JSON) was sent. */
  body: unknown;
}

export interface ControlRoute {
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** Under /__mock: `/workspaces/{workspaceId}`. */
  path: string;
  handle(request: ControlRequest): Reply | Promise<Reply>;
}

function isCollection(name: string): name is CollectionName {
  return (collectionNames as string[]).includes(name);
}

function optionalInteger(value: unknown, field: string, max = 4294967295): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > max) throw invalid({ [field]: `must be an integer from 0 to ${max}` });
  return value as number;
}

function objectBody(body: unknown): Record<string, unknown> {
  if (body === undefined) return {};
  if (!body || typeof body !== "object" || Array.isArray(body)) throw invalid({ body: "must be a JSON object" });
  return body as Record<string, unknown>;
}

function onlyKeys(body: Record<string, unknown>, allowed: string[]): void {
  const extra = Object.keys(body).filter((k) => !allowed.includes(k));
  if (extra.length > 0) throw invalid(Object.fromEntries(extra.map((k) => [k, "is not allowed"])));
}

export function controlRoutes(services: Services, journal: Journal): ControlRoute[] {
  const { workspaces, clock, simulation, webhooks } = services;
  const defaultWorkspaceId = DEFAULT_WORKSPACE_ID;

  const workspaceOf = (id: string): Workspace => {
    const workspace = workspaces.get(id);
    if (!workspace) throw new ApiError(404, `Workspace not found: ${id}`);
    return workspace;
  };
  const collectionOf = (name: string): CollectionName => {
    if (!isCollection(name)) throw new ApiError(404, `Unknown collection ${name}; one of: ${collectionNames.join(", ")}`);
    return name;
  };
  const info = (w: Workspace) => ({ workspaceId: w.workspaceId, counts: w.counts() });

  return [
    { method: "GET", path: "/health", handle: () => ({ status: 200, body: { status: "ok" } }) },

    {
      method: "POST",
      path: "/reset",
      handle: ({ body: raw }) => {
        const body = objectBody(raw);
        onlyKeys(body, ["seed"]);
        const seed = optionalInteger(body.seed, "seed");
        workspaces.reset(defaultWorkspaceId, seed);
        webhooks.clear();
        journal.clear();
        for (const workspace of workspaces.list()) simulation.resume(workspace);
        return { status: 200, body: { status: "ok", seed: workspaceOf(defaultWorkspaceId).seed } };
      },
    },

    { method: "GET", path: "/workspaces", handle: () => ({ status: 200, body: workspaces.list().map(info) }) },

    {
      method: "POST",
      path: "/workspaces",
      handle: ({ body: raw }) => {
        const body = objectBody(raw);
        onlyKeys(body, ["seed", "empty", "readOnly"]);
        for (const flag of ["empty", "readOnly"]) {
          if (body[flag] !== undefined && typeof body[flag] !== "boolean") throw invalid({ [flag]: "must be a boolean" });
        }
        const workspace = workspaces.create(
          { seed: optionalInteger(body.seed, "seed"), empty: body.empty as boolean | undefined, readOnly: body.readOnly as boolean | undefined },
          workspaceOf(defaultWorkspaceId).random,
        );
        simulation.resume(workspace);
        return { status: 201, body: { workspaceId: workspace.workspaceId, apiKey: workspace.apiKey } };
      },
    },

    { method: "GET", path: "/workspaces/{workspaceId}/snapshot", handle: ({ params }) => ({ status: 200, body: exportSnapshot(workspaceOf(params.workspaceId)) }) },

    {
      method: "PUT",
      path: "/workspaces/{workspaceId}/snapshot",
      handle: ({ params, body }) => {
        const workspace = workspaceOf(params.workspaceId);
        importSnapshot(workspace, objectBody(body));
        simulation.resume(workspace);
        return { status: 200, body: info(workspace) };
      },
    },

    {
      method: "GET",
      path: "/workspaces/{workspaceId}/{collection}",
      handle: ({ params }) => ({ status: 200, body: workspaceOf(params.workspaceId).collections[collectionOf(params.collection)].all().reverse() }),
    },

    {
      method: "POST",
      path: "/workspaces/{workspaceId}/{collection}",
      handle: ({ params, body }) => {
        const workspace = workspaceOf(params.workspaceId);
        const name = collectionOf(params.collection);
        const partial = objectBody(body);
        let record: unknown;
        try {
          record = fillRecord(workspace, name, partial, clock.now());
        } catch (error) {
          // A builder meeting a field of the wrong type (agents: "x") is bad input, not a server fault.
          throw new ApiError(400, `Cannot build a ${name} record from this partial: ${(error as Error).message}`);
        }
        const errors = recordErrors(name, record);
        if (errors) throw invalid(errors, `Not a valid ${name} record`);
        const collection = workspace.collections[name] as unknown as { create(r: unknown): unknown; idOf(r: unknown): string; has(id: string): boolean };
        if (collection.has(collection.idOf(record))) throw new ApiError(409, `${name} already holds a record with id ${collection.idOf(record)}`);
        collection.create(record);
        if (name === "calls") simulation.calls.track(workspace, record as never);
        if (name === "testRuns") {
          // The batch's counters follow its test runs, whichever way a run arrives.
          recountBatch(workspace, (record as { batchId: string }).batchId);
          simulation.batches.track(workspace, record as never);
        }
        return { status: 201, body: record };
      },
    },

    { method: "GET", path: "/clock", handle: () => ({ status: 200, body: clockState(clock) }) },

    {
      method: "POST",
      path: "/clock/advance",
      handle: async ({ body: raw }) => {
        const body = objectBody(raw);
        onlyKeys(body, ["seconds"]);
        const seconds = body.seconds;
        if (typeof seconds !== "number" || !Number.isFinite(seconds) || seconds < 0 || seconds > 31536000) {
          throw invalid({ seconds: "must be a number from 0 to 31536000" });
        }
        await clock.advance(seconds);
        await webhooks.idle();
        return { status: 200, body: clockState(clock) };
      },
    },

    { method: "GET", path: "/requests", handle: () => ({ status: 200, body: journal.list() }) },
    {
      method: "DELETE",
      path: "/requests",
      handle: () => {
        journal.clear();
        return { status: 204 };
      },
    },

    { method: "GET", path: "/webhook-deliveries", handle: () => ({ status: 200, body: webhooks.list() }) },
  ];
}

/**
 * A record filled through the control plane counts as created now: it is inserted last, so it comes
 * first in "most recently created first" lists. Its creation time must agree, so a fill the builder
 * dated before the newest record of the collection is built again from that record's time.
 */
function fillRecord(workspace: Workspace, name: CollectionName, partial: Record<string, unknown>, now: Date): unknown {
  const record = buildRecord(name, createBuildContext(workspace, now), partial) as unknown as Record<string, unknown>;
  const field = ["createdAt", "createdDate"].find((f) => typeof record[f] === "string" && !(f in partial));
  if (!field) return record;
  const newest = (workspace.collections[name] as unknown as { page(q: object): { items: Record<string, unknown>[] } }).page({ order: "newest", page: 0, size: 1 }).items[0];
  const floor = typeof newest?.[field] === "string" ? (newest[field] as string) : undefined;
  if (!floor || Date.parse(record[field] as string) >= Date.parse(floor) || Date.parse(floor) > now.getTime()) return record;
  return buildRecord(name, createBuildContext(workspace, now), { ...partial, [field]: floor });
}

function clockState(clock: Clock) {
  return { now: clock.iso(), mode: clock.mode, speed: clock.speed };
}

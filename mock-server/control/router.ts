/**
 * The /__mock control plane (spec/mock-control.yaml): health, reset, workspaces, fixtures, the clock,
 * the request journal and the webhook outbox. No API key: it exists only on the mock.
 */
import express, { Router } from "express";
import type { Clock } from "../clock.js";
import { ApiError, invalid } from "../http/errors.js";
import { sendJson } from "../http/reply-json.js";
import type { Journal } from "../http/journal.js";
import type { Services } from "../http/context.js";
import { collectionNames, type CollectionName } from "../store/records.js";
import type { Workspace } from "../store/workspace.js";
import { buildRecord, createBuildContext, recountBatch } from "../seed/index.js";
import { recordErrors } from "./record-checks.js";
import { exportSnapshot, importSnapshot } from "./snapshot.js";

export interface ControlOptions {
  services: Services;
  journal: Journal;
  defaultWorkspaceId: string;
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

export function controlRouter({ services, journal, defaultWorkspaceId }: ControlOptions): Router {
  const { workspaces, clock, simulation, webhooks } = services;
  const router = Router();
  router.use(express.json({ limit: "50mb" }));

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

  router.get("/health", (_req, res) => sendJson(res, 200, { status: "ok" }));

  router.post("/reset", (req, res) => {
    const body = objectBody(req.body);
    onlyKeys(body, ["seed"]);
    const seed = optionalInteger(body.seed, "seed");
    workspaces.reset(defaultWorkspaceId, seed);
    webhooks.clear();
    journal.clear();
    for (const workspace of workspaces.list()) simulation.resume(workspace);
    sendJson(res, 200, { status: "ok", seed: workspaceOf(defaultWorkspaceId).seed });
  });

  router.get("/workspaces", (_req, res) => sendJson(res, 200, workspaces.list().map(info)));

  router.post("/workspaces", (req, res) => {
    const body = objectBody(req.body);
    onlyKeys(body, ["seed", "empty", "readOnly"]);
    for (const flag of ["empty", "readOnly"]) {
      if (body[flag] !== undefined && typeof body[flag] !== "boolean") throw invalid({ [flag]: "must be a boolean" });
    }
    const workspace = workspaces.create(
      { seed: optionalInteger(body.seed, "seed"), empty: body.empty as boolean | undefined, readOnly: body.readOnly as boolean | undefined },
      workspaceOf(defaultWorkspaceId).random,
    );
    simulation.resume(workspace);
    sendJson(res, 201, { workspaceId: workspace.workspaceId, apiKey: workspace.apiKey });
  });

  router.get("/workspaces/:workspaceId/snapshot", (req, res) => sendJson(res, 200, exportSnapshot(workspaceOf(req.params.workspaceId))));

  router.put("/workspaces/:workspaceId/snapshot", (req, res) => {
    const workspace = workspaceOf(req.params.workspaceId);
    importSnapshot(workspace, objectBody(req.body));
    simulation.resume(workspace);
    sendJson(res, 200, info(workspace));
  });

  router.get("/workspaces/:workspaceId/:collection", (req, res) => {
    const records = workspaceOf(req.params.workspaceId).collections[collectionOf(req.params.collection)].all();
    sendJson(res, 200, records.reverse());
  });

  router.post("/workspaces/:workspaceId/:collection", (req, res) => {
    const workspace = workspaceOf(req.params.workspaceId);
    const name = collectionOf(req.params.collection);
    const partial = objectBody(req.body);
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
    sendJson(res, 201, record);
  });

  router.get("/clock", (_req, res) => sendJson(res, 200, clockState(clock)));

  router.post("/clock/advance", async (req, res) => {
    const body = objectBody(req.body);
    onlyKeys(body, ["seconds"]);
    const seconds = body.seconds;
    if (typeof seconds !== "number" || !Number.isFinite(seconds) || seconds < 0 || seconds > 31536000) {
      throw invalid({ seconds: "must be a number from 0 to 31536000" });
    }
    await clock.advance(seconds);
    await webhooks.idle();
    sendJson(res, 200, clockState(clock));
  });

  router.get("/requests", (_req, res) => sendJson(res, 200, journal.list()));
  router.delete("/requests", (_req, res) => {
    journal.clear();
    res.status(204).end();
  });

  router.get("/webhook-deliveries", (_req, res) => sendJson(res, 200, webhooks.list()));

  return router;
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

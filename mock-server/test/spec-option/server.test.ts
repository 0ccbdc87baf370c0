/**
 * `startMock({ spec })` with another document's file: the Gadget Shop (YAML) and the Notes API (JSON),
 * each on its own server, served by the generic layer alone under their base paths.
 */
import { afterAll, beforeAll } from "vitest";
import { startMock, type RunningMock } from "../../server.js";
import { GADGETS, gadgetCases, NOTES, noteCases } from "./support.js";

let gadgets: RunningMock;
let notes: RunningMock;

beforeAll(async () => {
  [gadgets, notes] = await Promise.all([
    startMock({ spec: GADGETS, log: () => undefined }),
    startMock({ spec: NOTES, log: () => undefined }),
  ]);
});
afterAll(async () => {
  await Promise.all([gadgets?.close(), notes?.close()]);
});

gadgetCases("startMock", () => gadgets.url);
noteCases("startMock", () => notes.url);

/**
 * `createApp({ spec })` with another document (parsed, or its file), mounted in a parent Express app:
 * the document's operations answer at /mount + its base path, its errors in its own shape.
 */
import express from "express";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createApp, type MockApp } from "../../app.js";
import { GADGETS, gadgetCases, gadgetsDocument, NOTES, noteCases } from "./support.js";

let gadgets: MockApp;
let notes: MockApp;
let server: Server;
let url = "";

beforeAll(async () => {
  gadgets = createApp({ spec: gadgetsDocument(), clock: { mode: "virtual" }, log: () => undefined });
  // One given as a parsed document, one as its file's path.
  notes = createApp({ spec: NOTES, clock: { mode: "virtual" }, log: () => undefined });
  const parent = express();
  parent.use("/gadget-mount", gadgets.app);
  parent.use("/note-mount", notes.app);
  server = parent.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
it("refuses a file it cannot read, naming it", () => {
  expect(() => createApp({ spec: `${GADGETS}.missing` })).toThrow(
    /spec .*gadgets\.yaml\.missing cannot be read: ENOENT/,
  );
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await Promise.all([gadgets?.close(), notes?.close()]);
});

gadgetCases("createApp in Express", () => `${url}/gadget-mount`);
noteCases("createApp in Express", () => `${url}/note-mount`);

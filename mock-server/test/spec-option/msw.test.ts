/**
 * `createMockHandlers({ spec })` with another document under msw/node's setupServer: the Gadget Shop
 * as YAML text (as a page would import the file's contents) and the Notes API as a parsed document,
 * each at its baseUrl + its base path, with no server listening anywhere.
 */
import { setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMockHandlers } from "../../msw/handlers.js";
import { gadgetCases, gadgetsText, noteCases, notesDocument } from "./support.js";

const gadgets = createMockHandlers({ spec: gadgetsText(), baseUrl: "https://gadgets.test", log: () => undefined });
const notes = createMockHandlers({
  spec: notesDocument(),
  baseUrl: "https://notes.test/base",
  clock: "virtual",
  log: () => undefined,
});
const server = setupServer(...gadgets.handlers, ...notes.handlers);

beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterAll(async () => {
  server.close();
  await Promise.all([gadgets.mock.close(), notes.mock.close()]);
});

gadgetCases("MSW", () => "https://gadgets.test");
noteCases("MSW", () => "https://notes.test/base");

describe("createMockHandlers with another document", () => {
  it("compiles it in the background: ready settles, and the mock then serves its operations", async () => {
    await gadgets.ready;
    expect(gadgets.mock.contract().basePath).toBe("/shop/v2");
    expect(gadgets.mock.contract().operations.map((op) => op.operationId)).toContain("deleteGadgetsByGadgetId");
  });

  it("refuses a Swagger 2.0 document at once, and says why a document it cannot read fails", async () => {
    expect(() => createMockHandlers({ spec: { swagger: "2.0", paths: {} } })).toThrow(/Swagger 2\.0 is not served/);
    const logs: string[] = [];
    const broken = createMockHandlers({
      spec: "openapi: [3.1",
      baseUrl: "https://broken.test",
      log: (l) => logs.push(l),
    });
    await expect(broken.ready).rejects.toThrow(/neither JSON nor YAML/);
    const answer = await broken.handlers[0].run({
      request: new Request("https://broken.test/anything") as never,
      requestId: "broken",
    });
    expect(answer?.response?.status).toBe(500);
    expect(logs.join("\n")).toMatch(/the spec cannot be served/);
    await broken.mock.close();
  });
});

/**
 * The MSW door with another document: `createMockHandlers({ spec })` given the Museum API as a parsed
 * document (as a frontend test would import it, with no file system), under msw/node's setupServer.
 * The same round trip as through the server: 401 without basic auth, create, read, patch, delete, 404.
 */
import { setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMockHandlers } from "../../msw/handlers.js";
import { basePath, basic, client, loadDocument, MUSEUM, responseJudge } from "./support.js";

const doc = loadDocument(MUSEUM);
const judge = responseJudge(doc);
const origin = "https://museum.test";
const { handlers, mock } = createMockHandlers({ spec: doc, baseUrl: origin, clock: "virtual", log: () => undefined });
const server = setupServer(...handlers);
const root = `${origin}${basePath(doc)}`;

beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterAll(async () => {
  server.close();
  await mock.close();
});

describe("the Museum API through the MSW door", () => {
  it("refuses a request without basic auth, and serves a special event's round trip", async () => {
    const anonymous = client(root);
    expect((await anonymous.json("/special-events")).status).toBe(401);

    const curator = client(root, basic("curator", "pw"));
    const event = { name: "Fossils", location: "Hall A", eventDescription: "Bones.", dates: ["2030-05-01"], price: 3 };
    const created = await curator.json("/special-events", "POST", event);
    expect(created.status).toBe(201);
    expect(judge("/special-events", "post", 201, created.body)).toEqual([]);
    expect((await curator.json(`/special-events/${created.body.eventId}`)).body).toEqual(created.body);
    expect((await curator.json("/special-events")).body).toEqual([created.body]);

    const patched = await curator.json(`/special-events/${created.body.eventId}`, "PATCH", { price: 4 });
    expect(patched.body).toEqual({ ...created.body, price: 4 });
    expect((await curator.json(`/special-events/${created.body.eventId}`, "DELETE")).status).toBe(204);
    const gone = await curator.json(`/special-events/${created.body.eventId}`);
    expect(gone.status).toBe(404);
    expect(judge("/special-events/{eventId}", "get", 404, gone.body, "application/problem+json")).toEqual([]);
  });
});

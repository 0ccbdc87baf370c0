/**
 * Redocly's Museum API (OpenAPI 3.1, uuid ids, PATCH, plain arrays with page/limit, HTTP basic on
 * every operation, application/problem+json errors, examples) served with `startMock({ spec })`,
 * driven as a user of Prism or Microcks would drive it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMock, type RunningMock } from "../../server.js";
import { basePath, basic, client, loadDocument, MUSEUM, responseJudge, type Client } from "./support.js";

const doc = loadDocument(MUSEUM);
const judge = responseJudge(doc);
const logs: string[] = [];
let mock: RunningMock;
let root: string;
let curator: Client;
let visitor: Client;
let anonymous: Client;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PROBLEM = "application/problem+json";

beforeAll(async () => {
  mock = await startMock({ spec: MUSEUM, log: (line) => logs.push(line) });
  root = `${mock.url}${basePath(doc)}`;
  curator = client(root, basic("curator", "s3cret-curator"));
  visitor = client(root, basic("visitor", "s3cret-visitor"));
  anonymous = client(root);
});
afterAll(() => mock?.close());

const anEvent = (name: string) => ({
  name,
  location: "Hall A",
  eventDescription: `All about ${name}.`,
  dates: ["2030-05-01", "2030-05-02"],
  price: 12.5,
});

describe("Redocly Museum API served with --spec", () => {
  it("serves under its server URL's path and nowhere else", async () => {
    expect(basePath(doc)).toBe("/_mock/docs/openapi/museum-api");
    expect((await curator.json("/special-events")).status).toBe(200);
    const outside = await fetch(`${mock.url}/special-events`, { headers: basic("curator", "s3cret-curator") });
    expect(outside.status).toBe(404);
  });

  it("answers 401 without HTTP basic credentials, which every operation requires", async () => {
    expect((await anonymous.json("/special-events")).status).toBe(401);
    expect((await anonymous.json("/special-events", "POST", anEvent("x"))).status).toBe(401);
    expect((await anonymous.json("/museum-hours")).status).toBe(401);
    // A bearer token is not HTTP basic.
    const wrongScheme = await fetch(`${root}/special-events`, { headers: { Authorization: "Bearer abc" } });
    expect(wrongScheme.status).toBe(401);
  });

  it("creates a special event (201, eventId a uuid), reads it back equal, and keeps it to its credentials", async () => {
    const created = await curator.json("/special-events", "POST", anEvent("Fossils"));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject(anEvent("Fossils"));
    expect(created.body.eventId).toMatch(UUID);
    expect(judge("/special-events", "post", 201, created.body)).toEqual([]);
    // The judge can fail: an integer eventId is not the document's uuid.
    expect(judge("/special-events", "post", 201, { ...created.body, eventId: 7 })).not.toEqual([]);

    const read = await curator.json(`/special-events/${created.body.eventId}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
    const elsewhere = await visitor.json(`/special-events/${created.body.eventId}`);
    expect(elsewhere.status).toBe(404);
    // Another password for the same user is another credential, so another workspace.
    const otherPassword = client(root, basic("curator", "another"));
    expect((await otherPassword.json(`/special-events/${created.body.eventId}`)).status).toBe(404);
  });

  it("lists special events as a plain array, newest first, only the caller's", async () => {
    const lister = client(root, basic("lister", "pw"));
    const first = await lister.json("/special-events", "POST", anEvent("First"));
    const second = await lister.json("/special-events", "POST", anEvent("Second"));
    const listed = await lister.json("/special-events");
    expect(listed.status).toBe(200);
    expect(judge("/special-events", "get", 200, listed.body)).toEqual([]);
    expect(listed.body).toEqual([second.body, first.body]);
    expect((await visitor.json("/special-events")).body).not.toContainEqual(first.body);
  });

  it("pages the plain array by its page and limit parameters, within the documented maximum", async () => {
    const pager = client(root, basic("pager", "pw"));
    const created = [];
    for (const name of ["One", "Two", "Three"])
      created.push((await pager.json("/special-events", "POST", anEvent(name))).body);
    const [one, two, three] = created;
    expect((await pager.json("/special-events?limit=2")).body).toEqual([three, two]);
    expect((await pager.json("/special-events?page=2&limit=2")).body).toEqual([one]);
    expect((await pager.json("/special-events?page=3&limit=2")).body).toEqual([]);
    const tooMany = await pager.json("/special-events?limit=31");
    expect(tooMany.status).toBe(400);
    expect(judge("/special-events", "get", 400, tooMany.body, PROBLEM)).toEqual([]);
  });

  it("merges a PATCH into the event, and reads it back changed", async () => {
    const created = await curator.json("/special-events", "POST", anEvent("Minerals"));
    const patched = await curator.json(`/special-events/${created.body.eventId}`, "PATCH", {
      location: "On the beach.",
      price: 15,
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ ...created.body, location: "On the beach.", price: 15 });
    expect((await curator.json(`/special-events/${created.body.eventId}`)).body).toEqual(patched.body);
    const refused = await curator.json(`/special-events/${created.body.eventId}`, "PATCH", { price: "free" });
    expect(refused.status).toBe(400);
    expect((await curator.json(`/special-events/${created.body.eventId}`)).body).toEqual(patched.body);
  });

  it("deletes an event (204), then 404s it with the document's problem+json error body", async () => {
    const created = await curator.json("/special-events", "POST", anEvent("Closing"));
    const deleted = await curator.json(`/special-events/${created.body.eventId}`, "DELETE");
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe("");
    const after = await curator.json(`/special-events/${created.body.eventId}`);
    expect(after.status).toBe(404);
    expect(after.headers.get("content-type")).toContain(PROBLEM);
    expect(judge("/special-events/{eventId}", "get", 404, after.body, PROBLEM)).toEqual([]);
    expect((await curator.json(`/special-events/${created.body.eventId}`, "PATCH", { price: 1 })).status).toBe(404);
  });

  it("refuses a missing required field and a malformed id with a documented 400 problem body", async () => {
    const { name: _name, ...nameless } = anEvent("Nameless");
    const missing = await curator.json("/special-events", "POST", nameless);
    expect(missing.status).toBe(400);
    expect(missing.headers.get("content-type")).toContain(PROBLEM);
    expect(judge("/special-events", "post", 400, missing.body, PROBLEM)).toEqual([]);
    const badId = await curator.json("/special-events/not-a-uuid");
    expect(badId.status).toBe(400);
  });

  it("answers museum hours from the document's example, the same for the same request", async () => {
    const hours = await curator.json("/museum-hours");
    expect(hours.status).toBe(200);
    expect(judge("/museum-hours", "get", 200, hours.body)).toEqual([]);
    expect(hours.body).toEqual(doc.components.examples.GetMuseumHoursResponseExample.value);
    expect((await curator.json("/museum-hours")).body).toEqual(hours.body);
  });

  it("answers a ticket purchase with its documented 201, valid against the schema", async () => {
    const bought = await curator.json("/tickets", "POST", {
      ticketType: "general",
      ticketDate: "2030-05-01",
      email: "todd@example.com",
    });
    expect(bought.status).toBe(201);
    expect(judge("/tickets", "post", 201, bought.body)).toEqual([]);
    const refused = await curator.json("/tickets", "POST", { email: "todd@example.com" });
    expect(refused.status).toBe(400);
  });

  it("answers the ticket QR code as a PNG", async () => {
    const qr = await curator(`/tickets/${crypto.randomUUID()}/qr`);
    expect(qr.status).toBe(200);
    expect(qr.headers.get("content-type")).toContain("image/png");
    // The PNG signature: a body an image decoder takes.
    expect([...new Uint8Array(await qr.arrayBuffer()).slice(0, 8)]).toEqual([137, 80, 78, 71, 13, 10, 26, 10]);
  });

  it("never logs a credential", () => {
    const text = logs.join("\n");
    const credentials = [basic("curator", "s3cret-curator"), basic("visitor", "s3cret-visitor"), basic("lister", "pw")];
    for (const { Authorization } of credentials) expect(text).not.toContain(Authorization.slice("Basic ".length));
    expect(text).not.toContain("s3cret");
  });
});

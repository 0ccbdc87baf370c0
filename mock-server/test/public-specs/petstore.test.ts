/**
 * Swagger Petstore (OpenAPI 3.0, integer ids, PUT with the id in the body, plain arrays, API key and
 * OAuth2) served with `startMock({ spec })`, driven as a user of Prism or Microcks would drive it:
 * under its server URL's path, with its credentials, through its own operations only.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMock, type RunningMock } from "../../server.js";
import { basePath, bearer, client, loadDocument, PETSTORE, responseJudge, type Client } from "./support.js";

const doc = loadDocument(PETSTORE);
const judge = responseJudge(doc);
const logs: string[] = [];
let mock: RunningMock;
let root: string;
// Two OAuth2 tokens and one API key: each its own workspace.
let alice: Client;
let bob: Client;
let keyed: Client;
let anonymous: Client;

beforeAll(async () => {
  mock = await startMock({ spec: PETSTORE, log: (line) => logs.push(line) });
  root = `${mock.url}${basePath(doc)}`;
  alice = client(root, bearer("alice-token"));
  bob = client(root, bearer("bob-token"));
  keyed = client(root, { api_key: "petstore-key" });
  anonymous = client(root);
});
afterAll(() => mock?.close());

const aPet = (name: string, status = "available") => ({ name, photoUrls: [`https://img.test/${name}.png`], status });

describe("Swagger Petstore served with --spec", () => {
  it("serves under its server URL's path, /api/v3, and nowhere else", async () => {
    expect(basePath(doc)).toBe("/api/v3");
    expect((await alice.json("/pet", "POST", aPet("rex"))).status).toBe(200);
    const outside = await fetch(`${mock.url}/pet`, {
      method: "POST",
      headers: { ...bearer("alice-token"), "Content-Type": "application/json" },
      body: JSON.stringify(aPet("rex")),
    });
    expect(outside.status).toBe(404);
  });

  it("answers 401 without the credential an operation requires, and serves open operations without one", async () => {
    expect((await anonymous.json("/pet", "POST", aPet("rex"))).status).toBe(401);
    expect((await anonymous.json("/pet/1")).status).toBe(401);
    expect((await anonymous.json("/store/inventory")).status).toBe(401);
    // addPet needs petstore_auth (OAuth2): the api_key alone is not it.
    expect((await keyed.json("/pet", "POST", aPet("rex"))).status).toBe(401);
    // placeOrder names no security: served to anyone.
    expect((await anonymous.json("/store/order", "POST", { petId: 1, quantity: 1 })).status).toBe(200);
  });

  it("creates a pet (its documented 200, id an integer), reads it back equal, and keeps it to its token", async () => {
    const created = await alice.json("/pet", "POST", aPet("fido", "pending"));
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject(aPet("fido", "pending"));
    expect(Number.isSafeInteger(created.body.id)).toBe(true);
    expect(judge("/pet", "post", 200, created.body)).toEqual([]);

    const read = await alice.json(`/pet/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
    // Another token is another workspace: the pet is not there.
    expect((await bob.json(`/pet/${created.body.id}`)).status).toBe(404);
    const second = await alice.json("/pet", "POST", aPet("rover"));
    expect(second.body.id).not.toBe(created.body.id);
  });

  it("replaces a pet by PUT /pet with the id in the body, and 404s an unknown id", async () => {
    const created = await alice.json("/pet", "POST", aPet("tom"));
    const replacement = { id: created.body.id, name: "tom-renamed", photoUrls: [], status: "sold" };
    const replaced = await alice.json("/pet", "PUT", replacement);
    expect(replaced.status).toBe(200);
    expect(replaced.body).toEqual(replacement);
    expect((await alice.json(`/pet/${created.body.id}`)).body).toEqual(replacement);
    // Bob cannot replace Alice's pet: in his workspace it does not exist.
    expect((await bob.json("/pet", "PUT", replacement)).status).toBe(404);
    expect((await alice.json(`/pet/${created.body.id}`)).body).toEqual(replacement);
  });

  it("deletes a pet (its documented 200), then 404s it with no body, as the document documents none", async () => {
    const created = await alice.json("/pet", "POST", aPet("gone"));
    const deleted = await alice.json(`/pet/${created.body.id}`, "DELETE");
    expect(deleted.status).toBe(200);
    const after = await alice.json(`/pet/${created.body.id}`);
    expect(after.status).toBe(404);
    expect(after.text).toBe("");
    expect((await alice.json(`/pet/${created.body.id}`, "DELETE")).status).toBe(404);
  });

  it("refuses a pet without its required name with a documented 4xx", async () => {
    const missing = await alice.json("/pet", "POST", { photoUrls: [] });
    expect([400, 422]).toContain(missing.status);
    const wrongType = await alice.json("/pet", "POST", { ...aPet("x"), id: "not-a-number" });
    expect([400, 422]).toContain(wrongType.status);
    const badPath = await alice.json("/pet/not-a-number");
    expect(badPath.status).toBe(400);
  });

  it("lists pets by status through findByStatus, newest first, filtered by the record field it names", async () => {
    const lister = client(root, bearer("lister-token"));
    const first = await lister.json("/pet", "POST", aPet("one", "sold"));
    const second = await lister.json("/pet", "POST", aPet("two", "sold"));
    await lister.json("/pet", "POST", aPet("three", "pending"));
    const sold = await lister.json("/pet/findByStatus?status=sold");
    expect(sold.status).toBe(200);
    expect(judge("/pet/findByStatus", "get", 200, sold.body)).toEqual([]);
    expect(sold.body).toEqual([second.body, first.body]);
    // The document's default status is available: no pet of this token has it.
    expect((await lister.json("/pet/findByStatus")).body).toEqual([]);
  });

  it("lists pets by tag through findByTags, matching any of the tags' names", async () => {
    const tagger = client(root, bearer("tagger-token"));
    const fluffy = await tagger.json("/pet", "POST", { ...aPet("cloud"), tags: [{ id: 1, name: "fluffy" }] });
    await tagger.json("/pet", "POST", { ...aPet("spike"), tags: [{ id: 2, name: "spiky" }] });
    const found = await tagger.json("/pet/findByTags?tags=fluffy&tags=woolly");
    expect(found.status).toBe(200);
    expect(found.body).toEqual([fluffy.body]);
  });

  // One value of an exploded array query parameter arrives as a string: the pipeline makes it an array.
  it("lists pets by one tag through findByTags (?tags=fluffy)", async () => {
    const tagger = client(root, bearer("one-tag-token"));
    const fluffy = await tagger.json("/pet", "POST", { ...aPet("cloud"), tags: [{ id: 1, name: "fluffy" }] });
    const found = await tagger.json("/pet/findByTags?tags=fluffy");
    expect(found.status).toBe(200);
    expect(found.body).toEqual([fluffy.body]);
  });

  it("keeps users by the username the path names, and replaces and deletes them there", async () => {
    const user = { username: "ada", firstName: "Ada", email: "ada@example.com" };
    const created = await anonymous.json("/user", "POST", user);
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject(user);
    expect((await anonymous.json("/user/ada")).body).toEqual(created.body);
    expect((await anonymous.json("/user/ada", "PUT", { ...user, lastName: "Lovelace" })).status).toBe(200);
    expect((await anonymous.json("/user/ada")).body).toMatchObject({ lastName: "Lovelace" });
    expect((await anonymous.json("/user/ada", "DELETE")).status).toBe(200);
    expect((await anonymous.json("/user/ada")).status).toBe(404);
  });

  it("answers operations that are not collections from their schema, the same for the same request", async () => {
    const inventory = await keyed.json("/store/inventory");
    expect(inventory.status).toBe(200);
    expect(judge("/store/inventory", "get", 200, inventory.body)).toEqual([]);
    expect((await keyed.json("/store/inventory")).body).toEqual(inventory.body);

    const login = await anonymous.json("/user/login?username=ada&password=secret");
    expect(login.status).toBe(200);
    expect(judge("/user/login", "get", 200, login.body)).toEqual([]);
    expect((await anonymous.json("/user/login?username=ada&password=secret")).body).toEqual(login.body);
  });

  it("never logs a credential", () => {
    const text = logs.join("\n");
    for (const secret of ["alice-token", "bob-token", "petstore-key", "lister-token", "tagger-token", "one-tag-token"])
      expect(text).not.toContain(secret);
  });
});

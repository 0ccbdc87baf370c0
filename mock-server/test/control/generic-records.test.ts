/**
 * The generic layer's collections in the control plane: GET /__mock/workspaces/{id}/generic lists them
 * (with those still empty), GET .../generic/{collection} lists a collection's records newest first,
 * POST fills a partial as the collection's create does and stores it, first in its lists. Served on the
 * kit's spec with voice profiles added (a spec author's new collection), and on another document.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { petstore } from "../../generic/test/documents.js";
import { type RunningMock, startMock } from "../../server.js";
import { kitWithVoiceProfilesSpec } from "../generic-kit.js";
import { useMock } from "../harness.js";

const t = useMock({ spec: kitWithVoiceProfilesSpec(), clock: "virtual" });

type Json = Record<string, any>;

async function control(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(t.url + path, {
    method,
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe("GET /__mock/workspaces/{id}/generic", () => {
  it("lists the generic collections of the document, empty ones too, with their counts", async () => {
    const w = await t.workspace({ empty: true });
    const base = `/__mock/workspaces/${w.workspaceId}`;
    expect((await control("GET", `${base}/generic`)).json).toEqual([
      { name: "voice-profiles", idField: "voiceProfileId", count: 0 },
    ]);
    const created = await t.raw("/v1/voice-profiles", {
      key: w.apiKey,
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ name: "Calm", language: "en" }),
    });
    expect(created.status).toBe(201);
    expect((await control("GET", `${base}/generic`)).json).toEqual([
      { name: "voice-profiles", idField: "voiceProfileId", count: 1 },
    ]);
    // Another workspace holds none of them.
    expect((await control("GET", "/__mock/workspaces/default/generic")).json).toEqual([
      { name: "voice-profiles", idField: "voiceProfileId", count: 0 },
    ]);
  });

  it("answers 404 for an unknown workspace", async () => {
    const res = await control("GET", "/__mock/workspaces/no-such-workspace/generic");
    expect(res.status).toBe(404);
    expect(res.json.message).toContain("no-such-workspace");
  });
});

describe("GET and POST /__mock/workspaces/{id}/generic/{collection}", () => {
  let base: string;
  let apiKey: string;
  beforeAll(async () => {
    const w = await t.workspace({ empty: true });
    base = `/__mock/workspaces/${w.workspaceId}/generic`;
    apiKey = w.apiKey;
  });

  it("fills a partial as the create does, and the API serves it first", async () => {
    const before = await (await t.raw("/v1/voice-profiles", { key: apiKey })).json();
    const res = await control("POST", `${base}/voice-profiles`, { name: "Bright", language: "de" });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    const record = res.json as Json;
    const clock = (await control("GET", `/__mock/clock?workspaceId=${base.split("/")[3]}`)).json;
    expect(record).toMatchObject({
      name: "Bright",
      language: "de",
      // The schema's default, and the document's record rule for what has no value.
      speed: 1,
      description: null,
      tags: [],
      createdAt: clock.now,
      updatedAt: clock.now,
    });
    expect(record.voiceProfileId).toMatch(UUID);
    const read = await t.raw(`/v1/voice-profiles/${record.voiceProfileId}`, { key: apiKey });
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual(record);
    const page = await (await t.raw("/v1/voice-profiles", { key: apiKey })).json();
    expect(page.data[0]).toEqual(record);
    expect(page.totalCount).toBe(before.totalCount + 1);
  });

  it("lists every record newest first, unpaginated", async () => {
    const made: string[] = [];
    for (const name of ["One", "Two", "Three"]) {
      const res = await control("POST", `${base}/voice-profiles`, { name, language: "fr" });
      made.push(res.json.voiceProfileId);
    }
    const listed = await control("GET", `${base}/voice-profiles`);
    expect(listed.status).toBe(200);
    expect(listed.json.slice(0, 3).map((r: Json) => r.voiceProfileId)).toEqual(made.reverse());
    const page = await (await t.raw("/v1/voice-profiles?size=1", { key: apiKey })).json();
    expect(listed.json).toHaveLength(page.totalCount);
  });

  it("keeps a given id, and answers 409 when it is taken", async () => {
    const first = await control("POST", `${base}/voice-profiles`, { voiceProfileId: "vp-given", name: "Given" });
    expect(first.status).toBe(201);
    expect(first.json.voiceProfileId).toBe("vp-given");
    // What is required and not given is drawn from the schema.
    expect(["en", "de", "fr"]).toContain(first.json.language);
    const again = await control("POST", `${base}/voice-profiles`, { voiceProfileId: "vp-given", name: "Again" });
    expect(again.status).toBe(409);
    expect(again.json.message).toContain("vp-given");
    expect((await t.raw("/v1/voice-profiles/vp-given", { key: apiKey }).then((r) => r.json())).name).toBe("Given");
  });

  it("fills a whole record from nothing", async () => {
    for (const body of [undefined, {}]) {
      const res = await control("POST", `${base}/voice-profiles`, body);
      expect(res.status).toBe(201);
      expect(typeof res.json.name).toBe("string");
      expect(res.json.name.length).toBeGreaterThan(0);
    }
  });

  it("refuses a record its schema refuses, with validationErrors, and stores nothing", async () => {
    const count = (await control("GET", `${base}/voice-profiles`)).json.length;
    const res = await control("POST", `${base}/voice-profiles`, { name: "Fast", speed: 9, language: "xx" });
    expect(res.status).toBe(400);
    expect(Object.keys(res.json.validationErrors).sort()).toEqual(["language", "speed"]);
    expect((await control("GET", `${base}/voice-profiles`)).json).toHaveLength(count);
    // Not an object at all: the control plane's own validation.
    expect((await control("POST", `${base}/voice-profiles`, ["no"])).status).toBe(400);
  });

  it("answers 404 for a name that is no generic collection of the document", async () => {
    for (const name of ["nothing", "calls", "agents", "voice_profiles"]) {
      const listed = await control("GET", `${base}/${name}`);
      expect(listed.status, name).toBe(404);
      expect(listed.json.message).toContain("voice-profiles");
      expect((await control("POST", `${base}/${name}`, {})).status, name).toBe(404);
    }
    // A name no collection could have.
    expect((await control("GET", `${base}/a%20b`)).status).toBe(404);
  });
});

describe("the kit's spec as it is, and another document", () => {
  let plain: RunningMock;
  let pets: RunningMock;
  beforeAll(async () => {
    plain = await startMock({ clock: "virtual", log: () => undefined });
    pets = await startMock({ spec: petstore(), clock: "virtual", log: () => undefined });
  });
  afterAll(async () => {
    await plain?.close();
    await pets?.close();
  });

  it("keeps no generic collection for the kit's spec: every operation has its handler", async () => {
    const res = await fetch(`${plain.url}/__mock/workspaces/default/generic`);
    expect(await res.json()).toEqual([]);
    expect((await fetch(`${plain.url}/__mock/workspaces/default/generic/calls`)).status).toBe(404);
  });

  it("lists another document's collections and fills their records (integer ids count up)", async () => {
    const base = `${pets.url}/__mock/workspaces/default/generic`;
    expect(await (await fetch(base)).json()).toEqual([
      { name: "pet", idField: "id", count: 0 },
      { name: "store.order", idField: "id", count: 0 },
    ]);
    const post = (body: unknown) =>
      fetch(`${base}/pet`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
    const rex = await (await post({ name: "Rex" })).json();
    const max = await (await post({ name: "Max", status: "sold" })).json();
    expect(rex).toMatchObject({ id: 1, name: "Rex", photoUrls: expect.any(Array) });
    expect(max.id).toBe(2);
    const read = await fetch(`${pets.url}/api/v3/pet/2`);
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual(max);
    expect((await (await fetch(`${base}/pet`)).json()).map((p: Json) => p.id)).toEqual([2, 1]);
    expect((await fetch(`${base}/store.order`)).status).toBe(200);
  });
});

/**
 * `--record` for a collection the generic layer serves (a spec author's new voice profiles, in front of a
 * deployment that has them): the upstream's records go into the generic collection as the 17's go into
 * theirs. A list's items in its order (newest first), the record a read, create or change answers, the
 * last one seen winning, a delete removing; secrets replaced; a record the schema refuses not kept and
 * told once. The upstream is a node:http server of the test's own on loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMock, type RunningMock } from "../../server.js";
import { kitWithVoiceProfiles } from "../../generic/test/documents.js";
import { kitSpecWith, kitWithVoiceProfilesSpec } from "../generic-kit.js";
import { startUpstream, type OwnUpstream } from "./broken-upstream.js";

type Json = Record<string, any>;

const SECRET = "sk-upstream-secret-0123456789";
const T0 = "2026-10-01T09:00:00.000Z";
const T1 = "2026-10-02T09:00:00.000Z";

const profile = (id: string, name: string, at: string, extra: Json = {}): Json => ({
  voiceProfileId: id,
  name,
  language: "en",
  description: null,
  tags: [],
  speed: 1,
  createdAt: at,
  updatedAt: at,
  ...extra,
});

const older = profile("vp-older", "Older", T0, { apiKey: SECRET });
const newer = profile("vp-newer", "Newer", T1);
const page = {
  data: [newer, older],
  page: 0,
  size: 20,
  totalPages: 1,
  hasNext: false,
  hasPrevious: false,
  totalCount: 2,
};

describe("--record in front of an upstream with a collection the generic layer serves", () => {
  let upstream: OwnUpstream;
  let door: RunningMock;
  const lines: string[] = [];

  beforeAll(async () => {
    upstream = await startUpstream({
      "GET /v1/voice-profiles": { status: 200, body: page },
      "GET /v1/voice-profiles/vp-older": { status: 200, body: { ...older, name: "Older, read again" } },
      "POST /v1/voice-profiles": { status: 201, body: profile("vp-created", "Created", T1) },
      "DELETE /v1/voice-profiles/vp-newer": { status: 204 },
      "PATCH /v1/voice-profiles/vp-older": { status: 200, body: { ...older, name: "Older, changed" } },
      // Off its schema (speed above 2): the mock could not serve it back.
      "GET /v1/voice-profiles/vp-fast": { status: 200, body: profile("vp-fast", "Fast", T1, { speed: 9 }) },
      "GET /v1/voice-profiles/vp-gone": { status: 404, body: { status: 404, message: "not found" } },
    });
    door = await startMock({
      spec: kitWithVoiceProfilesSpec(),
      upstream: upstream.url,
      record: "rec",
      clock: "virtual",
      log: (line) => lines.push(line),
    });
  });
  afterAll(async () => {
    await door?.close();
    await upstream?.close();
  });

  const send = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${door.url}${path}`, {
      method,
      headers: { "X-API-Key": "client-key", ...(body !== undefined && { "Content-Type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    await res.arrayBuffer();
    expect(res.headers.get("x-mock-source"), `${method} ${path}`).toBe("upstream");
    return res.status;
  };
  /** The recorded collection, newest first (control reads wait for the recording of what came before). */
  const recorded = async (): Promise<Json[]> => {
    const res = await fetch(`${door.url}/__mock/workspaces/rec/generic/voice-profiles`);
    expect(res.status).toBe(200);
    return (await res.json()) as Json[];
  };
  const ids = (records: Json[]) => records.map((r) => r.voiceProfileId);

  it("keeps a list's items in its order, secrets replaced", async () => {
    expect(await send("GET", "/v1/voice-profiles")).toBe(200);
    const records = await recorded();
    expect(ids(records)).toEqual(["vp-newer", "vp-older"]);
    expect(records[1].apiKey).toBe("[redacted]");
    expect(JSON.stringify(records)).not.toContain(SECRET);
  });

  it("keeps the last one seen of a record, what a create answers, and drops what a delete removes", async () => {
    expect(await send("GET", "/v1/voice-profiles/vp-older")).toBe(200);
    expect((await recorded()).find((r) => r.voiceProfileId === "vp-older")?.name).toBe("Older, read again");
    expect(await send("POST", "/v1/voice-profiles", { name: "Created", language: "en" })).toBe(201);
    expect(ids(await recorded())).toEqual(["vp-created", "vp-newer", "vp-older"]);
    expect(await send("DELETE", "/v1/voice-profiles/vp-newer")).toBe(204);
    expect(await send("PATCH", "/v1/voice-profiles/vp-older", { name: "Older, changed" })).toBe(200);
    const records = await recorded();
    expect(ids(records)).toEqual(["vp-created", "vp-older"]);
    expect(records[1].name).toBe("Older, changed");
    const collections = await (await fetch(`${door.url}/__mock/workspaces/rec/generic`)).json();
    expect(collections).toEqual([{ name: "voice-profiles", idField: "voiceProfileId", count: 2 }]);
  });

  it("keeps no failure, nor a record its schema refuses, and says so once", async () => {
    expect(await send("GET", "/v1/voice-profiles/vp-gone")).toBe(404);
    expect(await send("GET", "/v1/voice-profiles/vp-fast")).toBe(200);
    expect(await send("GET", "/v1/voice-profiles/vp-fast")).toBe(200);
    expect(ids(await recorded())).toEqual(["vp-created", "vp-older"]);
    const told = lines.filter((line) => line.includes("not recorded") && line.includes("vp-fast"));
    expect(told).toHaveLength(1);
    expect(told[0]).toContain("voice-profiles");
    expect(told[0]).toContain("speed");
  });

  it("leaves the 17's collections and the door's own workspace alone", async () => {
    const agents = await (await fetch(`${door.url}/__mock/workspaces/rec/agents`)).json();
    expect(agents).toEqual([]);
    const own = await (await fetch(`${door.url}/__mock/workspaces/default/generic`)).json();
    expect(own).toEqual([{ name: "voice-profiles", idField: "voiceProfileId", count: 0 }]);
  });
});

/**
 * The document's author marks the profile's description and tags as the record rule's (x-assumption):
 * an upstream that leaves them out when they have no value has its profiles kept, those fields filled
 * (`null`, `[]`), told once; one without its name (no assumption there) is still refused.
 */
describe("--record of a generic collection's records that omit what only the record rule adds", () => {
  let upstream: OwnUpstream;
  let door: RunningMock;
  const lines: string[] = [];
  const bare = (id: string, at: string): Json => {
    const { description: _d, tags: _t, ...rest } = profile(id, `Bare ${id}`, at);
    return rest;
  };
  const { name: _name, ...nameless } = bare("vp-nameless", T1);

  beforeAll(async () => {
    const doc = kitWithVoiceProfiles();
    const fields = doc.components.schemas.VoiceProfile.properties;
    fields.description["x-assumption"] = "null when the profile has none.";
    fields.tags["x-assumption"] = "Empty when the profile has none.";
    upstream = await startUpstream({
      "GET /v1/voice-profiles/vp-a": { status: 200, body: bare("vp-a", T0) },
      "GET /v1/voice-profiles/vp-b": { status: 200, body: bare("vp-b", T1) },
      "GET /v1/voice-profiles/vp-nameless": { status: 200, body: nameless },
    });
    // The list stays on the mock: it serves the recording back, from the workspace recorded into.
    door = await startMock({
      spec: kitSpecWith(doc),
      upstream: upstream.url,
      record: "rec",
      route: "listVoiceProfiles=mock",
      clock: "virtual",
      log: (line) => lines.push(line),
    });
  });
  afterAll(async () => {
    await door?.close();
    await upstream?.close();
  });

  it("keeps them filled, says so once, refuses one the documented level refuses, and serves them back", async () => {
    for (const id of ["vp-a", "vp-b", "vp-nameless", "vp-a"]) {
      const res = await fetch(`${door.url}/v1/voice-profiles/${id}`, { headers: { "X-API-Key": "client-key" } });
      expect([res.status, res.headers.get("x-mock-source")], id).toEqual([200, "upstream"]);
      await res.arrayBuffer();
    }
    const filled = ["vp-b", "vp-a"].map((id) => ({
      ...bare(id, id === "vp-a" ? T0 : T1),
      description: null,
      tags: [],
    }));
    const res = await fetch(`${door.url}/__mock/workspaces/rec/generic/voice-profiles`);
    expect(await res.json()).toEqual(filled);
    expect(lines.filter((line) => line.startsWith("recording:"))).toEqual([
      "recording: voice-profiles from the upstream lacked description, tags; filled as the spec's record rule says (null, [])",
    ]);
    expect(lines.filter((line) => line.startsWith("not recorded:"))).toEqual([
      "not recorded: voice-profiles vp-nameless fails the spec (name is required)",
    ]);
    // The mock's own list answers them (its answers are checked against the spec: a 500 otherwise).
    const list = await fetch(`${door.url}/v1/voice-profiles`, { headers: { "X-API-Key": "client-key" } });
    expect([list.status, list.headers.get("x-mock-source")]).toEqual([200, "mock"]);
    expect(((await list.json()) as { data: Json[] }).data).toEqual(filled);
  });
});

describe("without --record", () => {
  let upstream: OwnUpstream;
  let door: RunningMock;
  beforeAll(async () => {
    upstream = await startUpstream({ "GET /v1/voice-profiles": { status: 200, body: page } });
    door = await startMock({ spec: kitWithVoiceProfilesSpec(), upstream: upstream.url, log: () => undefined });
  });
  afterAll(async () => {
    await door?.close();
    await upstream?.close();
  });

  it("records nothing anywhere", async () => {
    const res = await fetch(`${door.url}/v1/voice-profiles`, { headers: { "X-API-Key": "k" } });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    const own = await (await fetch(`${door.url}/__mock/workspaces/default/generic`)).json();
    expect(own).toEqual([{ name: "voice-profiles", idField: "voiceProfileId", count: 0 }]);
  });
});

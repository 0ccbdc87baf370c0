/**
 * Prefer on operations the generic layer serves, as on the 17: `dynamic=true` draws the body afresh
 * from the schema with the generic layer's sampler (valid dates, emails, bounds; it used to answer
 * `format: date` and `format: email` with words, and response validation turned that into a 500),
 * `code=` forces a documented status, `example=` serves a named example.
 */
import { describe, expect, it } from "vitest";
import { useMock } from "../harness.js";
import { kitWithVoiceProfilesSpec } from "../generic-kit.js";

const t = useMock({ spec: kitWithVoiceProfilesSpec(), clock: "virtual" });

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const EMAIL = /^[^@\s]+@[^@\s]+\.[a-z]+$/i;

describe("Prefer: dynamic=true on a generic operation", () => {
  it("answers a body valid against the schema, another each time", async () => {
    const bodies: string[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await t.raw("/v1/usage", { headers: { Prefer: "dynamic=true" } });
      const text = await res.text();
      expect(res.status, text).toBe(200);
      const body = JSON.parse(text);
      expect(body.period.from).toMatch(DATE);
      expect(body.period.to).toMatch(DATE);
      expect(body.contact.email).toMatch(EMAIL);
      expect(body.contact.phone).toMatch(/^\+[1-9]\d{1,14}$/);
      expect(Number.isInteger(body.minutes) && body.minutes >= 0).toBe(true);
      bodies.push(text);
    }
    expect(new Set(bodies).size).toBeGreaterThan(1);
  });

  it("draws a collection's record as valid, and changes nothing", async () => {
    const created = await t.raw("/v1/voice-profiles", {
      method: "POST",
      headers: { "Content-Type": "application/json", Prefer: "dynamic=true" },
      body: JSON.stringify({ name: "Calm", language: "en" }),
    });
    expect(created.status).toBe(201);
    const drawn = await created.json();
    expect(drawn.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    expect(drawn.speed).toBeGreaterThanOrEqual(0.5);
    expect(drawn.speed).toBeLessThanOrEqual(2);
    // A preferred reply is served instead of the handler: nothing was stored.
    const list = await (await t.raw("/v1/voice-profiles")).json();
    expect(list.data).toEqual([]);
  });
});

describe("Prefer: code= and example= on a generic operation", () => {
  it("forces a documented status, refuses an undocumented one, and serves the media's example", async () => {
    const forced = await t.raw("/v1/voice-profiles/nope", { headers: { Prefer: "code=404" } });
    expect(forced.status).toBe(404);
    expect((await forced.json()).status).toBe(404);
    expect((await t.raw("/v1/voice-profiles", { headers: { Prefer: "code=418" } })).status).toBe(400);
    const preview = await t.raw("/v1/voice-profiles/any/preview", { method: "POST", headers: { Prefer: "code=200" } });
    expect(preview.status).toBe(200);
    expect(await preview.json()).toEqual({ audioUrl: "https://cdn.example.com/preview.mp3", seconds: 4 });
  });
});

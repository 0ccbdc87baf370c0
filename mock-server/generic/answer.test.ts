import { describe, expect, it } from "vitest";
import { contractOf } from "./test/contract-of.js";
import { kitWithVoiceProfiles, notes, petstore } from "./test/documents.js";
import { server, workspaceOf } from "./test/serve.js";

describe("answers from the schema", () => {
  const kit = server(contractOf(kitWithVoiceProfiles()));

  it("are the same for the same request, and differ by workspace and by request", () => {
    const ws = workspaceOf(1);
    const first = kit(ws, "getUsage", { query: { month: "2026-10" } });
    expect(first.status).toBe(200);
    expect(kit(ws, "getUsage", { query: { month: "2026-10" } })).toEqual(first);
    // Another workspace (seed and id), another answer; another query, another answer.
    expect(kit(workspaceOf(2), "getUsage", { query: { month: "2026-10" } }).body).not.toEqual(first.body);
    expect(kit(ws, "getUsage", { query: { month: "2026-09" } }).body).not.toEqual(first.body);
    // Drawing writes nothing: the workspace's Random has not moved.
    expect(ws.random.state).toBe(workspaceOf(1).random.state);
  });

  it("are valid against the schema, with realistic values by name (the harness checks each answer)", () => {
    for (let seed = 1; seed <= 40; seed++) {
      const { body } = kit(workspaceOf(seed), "getUsage");
      expect(body.contact.email).toMatch(/@/);
      expect(body.contact.phone).toMatch(/^\+[1-9]\d{1,14}$/);
      expect(body.period.from).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
  });

  it("take the document's example first", () => {
    const ws = workspaceOf();
    expect(kit(ws, "previewVoiceProfile", { params: { voiceProfileId: "v-1" } })).toEqual({
      status: 200,
      body: { audioUrl: "https://cdn.example.com/preview.mp3", seconds: 4 },
    });
  });

  it("answer a status documented without a body with none, and a string schema with a string", () => {
    const call = server(contractOf(petstore()));
    const ws = workspaceOf();
    expect(call(ws, "logoutUser")).toEqual({ status: 200, body: undefined });
    expect(typeof call(ws, "loginUser", { query: { username: "a", password: "b" } }).body).toBe("string");
    const pet = call(ws, "updatePetWithForm", { params: { petId: "3" }, query: { name: "rex" } }).body;
    expect(pet).toMatchObject({ name: expect.any(String), photoUrls: expect.any(Array) });
  });

  it("honour patterns, formats and required fields of a 3.1 document", () => {
    const call = server(contractOf(notes()));
    for (let seed = 1; seed <= 20; seed++) {
      const { body } = call(workspaceOf(seed), "shareNote", {
        params: { noteId: "7d9e1f3a-4b5c-4d6e-9f7a-8b9c0d1e2f3a" },
      });
      expect(body.code).toMatch(/^[A-Z]{4}-[0-9]{4}$/);
      expect(new Date(body.expiresAt).toISOString()).toBe(body.expiresAt);
    }
  });

  it("fail loudly when the schema admits no value", () => {
    const doc = notes();
    doc.paths["/notes/{noteId}/share"].post.responses["200"].content["application/json"].schema = {
      type: "string",
      minLength: 5,
      maxLength: 2,
    };
    const answer = server(contractOf(doc))(workspaceOf(), "shareNote", {
      params: { noteId: "7d9e1f3a-4b5c-4d6e-9f7a-8b9c0d1e2f3a" },
    });
    expect(answer.status).toBe(500);
    expect(answer.message).toMatch(/could not draw an answer valid against the 200 schema of shareNote/);
  });
});

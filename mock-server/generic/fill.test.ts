import { describe, expect, it } from "vitest";
import { contractOf } from "./test/contract-of.js";
import { NOW, server, workspaceOf } from "./test/serve.js";

const json = (schema: unknown) => ({ "application/json": { schema } });
const ok = (schema: unknown, status = "200") => ({ [status]: { description: "ok", content: json(schema) } });

/** A document of one collection at `/users/{userId}/posts` whose record is `record`. */
function nested(record: object, body: object = { type: "object", properties: { text: { type: "string" } } }) {
  const postId = { name: "postId", in: "path", required: true, schema: { type: "string" } };
  const userId = { name: "userId", in: "path", required: true, schema: { type: "string" } };
  return contractOf({
    openapi: "3.1.0",
    info: { title: "t", version: "1" },
    paths: {
      "/users/{userId}/posts": {
        parameters: [userId],
        get: { operationId: "listPosts", responses: ok({ type: "array", items: record }) },
        post: {
          operationId: "createPost",
          requestBody: { required: true, content: json(body) },
          responses: ok(record, "201"),
        },
      },
      "/users/{userId}/posts/{postId}": {
        parameters: [userId, postId],
        get: { operationId: "getPost", responses: ok(record) },
        put: { operationId: "replacePost", requestBody: { content: json(body) }, responses: ok(record) },
      },
    },
  });
}

describe("the server's fields of a new record", () => {
  it("short random ids for plain strings; the parent's id from the path, and lists by parent", () => {
    const record = {
      type: "object",
      required: ["postId", "userId", "text"],
      properties: { postId: { type: "string" }, userId: { type: "string" }, text: { type: "string" } },
    };
    const call = server(nested(record));
    const ws = workspaceOf();
    const post = call(ws, "createPost", { params: { userId: "ada" }, body: { text: "hi" } }).body;
    expect(post).toEqual({ postId: expect.stringMatching(/^[a-z0-9]{10}$/), userId: "ada", text: "hi" });
    call(ws, "createPost", { params: { userId: "bob" }, body: { text: "yo" } });
    expect(call(ws, "listPosts", { params: { userId: "ada" } }).body).toEqual([post]);
    expect(call(ws, "getPost", { params: { userId: "ada", postId: post.postId } }).body).toEqual(post);
  });

  it("ids by their pattern, or counting up from the minimum; epoch timestamps; a replace keeps creation", async () => {
    const record = {
      type: "object",
      required: ["id", "ref", "text", "created_at", "updated_at"],
      properties: {
        id: { type: "integer", minimum: 100 },
        ref: { type: "string", pattern: "^ord_[a-z0-9]{8}$" },
        text: { type: "string" },
        created_at: { type: "integer" },
        updated_at: { type: "integer" },
      },
    };
    const call = server(nested(record));
    const ws = workspaceOf();
    const first = call(ws, "createPost", { params: { userId: "u" }, body: { text: "a" } }).body;
    const epoch = Math.floor(NOW.getTime() / 1000);
    expect(first).toMatchObject({ id: 100, text: "a", created_at: epoch, updated_at: epoch });
    expect(first.ref).toMatch(/^ord_[a-z0-9]{8}$/);
    expect(call(ws, "createPost", { params: { userId: "u" }, body: { text: "b" } }).body.id).toBe(101);
    await ws.clock.advance(10);
    const replaced = call(ws, "replacePost", { params: { userId: "u", postId: "100" }, body: { text: "c" } }).body;
    expect(replaced).toMatchObject({ id: 100, text: "c", created_at: epoch, updated_at: epoch + 10 });
  });

  it("drops body fields a closed record does not have (a write-only password)", () => {
    const record = {
      type: "object",
      additionalProperties: false,
      required: ["postId", "text"],
      properties: { postId: { type: "string", format: "uuid" }, text: { type: "string" } },
    };
    const body = { type: "object", properties: { text: { type: "string" }, password: { type: "string" } } };
    const call = server(nested(record, body));
    const post = call(workspaceOf(), "createPost", {
      params: { userId: "u" },
      body: { text: "a", password: "pw" },
    }).body;
    expect(post).toEqual({ postId: expect.stringMatching(/^[0-9a-f-]{36}$/), text: "a" });
  });

  it("draws required fields the body lacks, valid and the same for the same record", () => {
    const record = {
      type: "object",
      required: ["postId", "text", "author"],
      properties: {
        postId: { type: "string" },
        text: { type: "string" },
        author: {
          type: "object",
          required: ["email", "score"],
          properties: {
            email: { type: "string", format: "email" },
            score: { type: "integer", minimum: 1, maximum: 5 },
          },
        },
      },
    };
    const contract = nested(record);
    const a = server(contract)(workspaceOf(7), "createPost", { params: { userId: "u" }, body: { text: "x" } }).body;
    const b = server(contract)(workspaceOf(7), "createPost", { params: { userId: "u" }, body: { text: "x" } }).body;
    expect(a.author.email).toMatch(/@/);
    expect(a).toEqual(b);
  });
});

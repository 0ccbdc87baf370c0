/**
 * Authentication on every operation of generated/openapi.json: 401 with the 2.2 body to a missing,
 * empty, wrong or wrong-case key and to a key anywhere but the X-API-Key header; the header's name is
 * case-insensitive (HTTP), its value is not. A read-only key gets 403 on a write.
 */
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { expectErrorBody, useMock } from "../harness.js";

const t = useMock();

/** The operations, read from the bundled spec itself rather than from the mock's own table. */
const spec = JSON.parse(readFileSync(new URL("../../../generated/openapi.json", import.meta.url), "utf8"));
const operations = Object.entries<Record<string, { operationId?: string }>>(spec.paths).flatMap(([path, item]) =>
  ["get", "post", "put", "patch", "delete"]
    .filter((m) => item[m])
    .map((method) => ({ operationId: item[method].operationId!, method: method.toUpperCase(), path })),
);

/** A concrete path for each operation: unknown ids are fine, auth comes first. */
const concrete = (path: string) => path.replace("{phoneNumber}", "%2B14155550100").replace(/\{[^}]+\}/g, "some-id");

/** The key with its case changed: upper case, or (for a key with no letter to raise) one letter lowered. */
function caseChanged(key: string): string[] {
  const variants = [
    key.toUpperCase(),
    key.toLowerCase(),
    key[0] === key[0].toUpperCase() ? key[0].toLowerCase() + key.slice(1) : key[0].toUpperCase() + key.slice(1),
  ];
  return [...new Set(variants)].filter((v) => v !== key);
}

/** Raw HTTP, so header names go on the wire exactly as written (fetch lowers them). */
function rawRequest(
  method: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(t.url + path, { method, headers }, (res) => {
      let body = "";
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode!, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("API key", () => {
  it("covers all 17 operations of the spec", () => expect(operations.length).toBe(17));

  it.each(operations.map((op) => [op.operationId, op] as const))(
    "%s: 401 to a missing, empty, wrong or wrong-case key",
    async (_id, op) => {
      const path = concrete(op.path);
      const other = await t.workspace();
      const keys: [string, string | null][] = [
        ["missing", null],
        ["empty", ""],
        ["wrong", "wrong-key"],
        ["a prefix of the key", t.mock.apiKey.slice(0, -1)],
        ["the key and more", `${t.mock.apiKey}x`],
        ...caseChanged(t.mock.apiKey).map((k): [string, string] => [`wrong case ${k}`, k]),
        ...caseChanged(other.apiKey).map((k): [string, string] => [`wrong case of a workspace key`, k]),
      ];
      for (const [label, key] of keys) {
        const res = await t.raw(path, { method: op.method, key, headers: key === "" ? { "X-API-Key": "" } : {} });
        expect(res.status, label).toBe(401);
        expect(res.headers.get("content-type"), label).toMatch(/^application\/json/);
        expectErrorBody(await res.json(), 401, path);
      }
    },
  );

  it.each(operations.map((op) => [op.operationId, op] as const))(
    "%s: 401 to a key anywhere but the X-API-Key header",
    async (_id, op) => {
      const path = concrete(op.path);
      const key = encodeURIComponent(t.mock.apiKey);
      for (const query of [`api_key=${key}`, `apiKey=${key}`, `X-API-Key=${key}`, `x-api-key=${key}`, `key=${key}`]) {
        const res = await t.raw(`${path}?${query}`, { method: op.method, key: null });
        expect(res.status, query).toBe(401);
        expectErrorBody(await res.json(), 401, path);
      }
      const elsewhere: Record<string, string>[] = [
        { Authorization: `Bearer ${t.mock.apiKey}` },
        { "Api-Key": t.mock.apiKey },
        { Cookie: `X-API-Key=${t.mock.apiKey}` },
      ];
      for (const headers of elsewhere) {
        const res = await t.raw(path, { method: op.method, key: null, headers });
        expect(res.status, Object.keys(headers)[0]).toBe(401);
      }
      // Two keys, one of them wrong: ambiguous, refused.
      const twice = await rawRequest(op.method, path, { "X-API-Key": t.mock.apiKey, "x-api-key": "wrong-key" });
      expect(twice.status).toBe(401);
    },
  );

  it.each(operations.map((op) => [op.operationId, op] as const))(
    "%s: the header name in any case is the same header",
    async (_id, op) => {
      const path = concrete(op.path);
      for (const name of ["X-API-Key", "x-api-key", "X-API-KEY", "x-Api-kEY"]) {
        const res = await rawRequest(op.method, path, { [name]: t.mock.apiKey, "Content-Type": "application/json" });
        expect(res.status, name).not.toBe(401);
        expect(res.status, name).toBeLessThan(500);
      }
    },
  );

  it("answers 403 to a read-only key on a write, and serves its reads", async () => {
    const { api, apiKey } = await t.workspace({ readOnly: true });
    expect((await api.GET("/v1/calls")).response.status).toBe(200);
    const res = await t.raw("/v1/integrations", {
      method: "POST",
      key: apiKey,
      headers: { "Content-Type": "application/json" },
      body: '{"name":"x"}',
    });
    expect(res.status).toBe(403);
    expectErrorBody(await res.json(), 403, "/v1/integrations");
  });
});

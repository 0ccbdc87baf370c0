/**
 * The signed-in session: kept per mock, read back only when it is one of ours, forgotten on sign-out,
 * harmless when the browser refuses storage; and the headers and scope it gives a connection.
 */
import { describe, expect, it } from "vitest";
import { forgetSession, readSession, saveSession, scopeOf, storageNameOf, withSession } from "./session.js";

/** A Storage over a Map (Node has no sessionStorage). */
function memoryStorage(): Storage & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return {
    map,
    get length() {
      return map.size;
    },
    clear: () => map.clear(),
    getItem: (name) => map.get(name) ?? null,
    key: (i) => [...map.keys()][i] ?? null,
    removeItem: (name) => void map.delete(name),
    setItem: (name, value) => void map.set(name, String(value)),
  };
}

const refusing = {
  getItem: () => {
    throw new Error("SecurityError");
  },
  setItem: () => {
    throw new Error("QuotaExceededError");
  },
  removeItem: () => {
    throw new Error("SecurityError");
  },
} as unknown as Storage;

const A = "http://127.0.0.1:4010";
const B = "http://127.0.0.1:4010/mock";

describe("the session", () => {
  it("is kept per mock and forgotten on sign-out", () => {
    const storage = memoryStorage();
    expect(saveSession(storage, A, { kind: "token", secret: "t-1" })).toBe(true);
    expect(saveSession(storage, B, { kind: "key", secret: "k-1" })).toBe(true);
    expect(readSession(storage, A)).toEqual({ kind: "token", secret: "t-1" });
    expect(readSession(storage, B)).toEqual({ kind: "key", secret: "k-1" });
    forgetSession(storage, A);
    expect(readSession(storage, A)).toBeUndefined();
    expect(readSession(storage, B)).toEqual({ kind: "key", secret: "k-1" });
  });

  it.each([
    ["not JSON", "t-1"],
    ["an unknown kind", JSON.stringify({ kind: "password", secret: "t-1" })],
    ["an empty secret", JSON.stringify({ kind: "token", secret: "" })],
    ["no secret", JSON.stringify({ kind: "key" })],
  ])("reads %s as signed out", (_, text) => {
    const storage = memoryStorage();
    storage.setItem(storageNameOf(A), text);
    expect(readSession(storage, A)).toBeUndefined();
  });

  it("works, for the page's life only, when the browser refuses storage or has none", () => {
    expect(saveSession(refusing, A, { kind: "token", secret: "t-1" })).toBe(false);
    expect(readSession(refusing, A)).toBeUndefined();
    expect(() => forgetSession(refusing, A)).not.toThrow();
    expect(saveSession(undefined, A, { kind: "token", secret: "t-1" })).toBe(false);
    expect(readSession(undefined, A)).toBeUndefined();
  });

  it("puts the secret in the header of its kind, and a key alone scopes the dashboard to its workspace", () => {
    const connection = { baseUrl: A, fetch };
    const token = withSession(connection, { kind: "token", secret: "t-1" });
    const key = withSession(connection, { kind: "key", secret: "k-1" });
    expect(token).toMatchObject({ controlToken: "t-1" });
    expect(token.apiKey).toBeUndefined();
    expect(key).toMatchObject({ apiKey: "k-1" });
    expect(key.controlToken).toBeUndefined();
    expect(withSession(connection, undefined)).toBe(connection);
    expect([scopeOf({}), scopeOf(token), scopeOf(key), scopeOf({ controlToken: "t", apiKey: "k" })]).toEqual([
      "mock",
      "mock",
      "workspace",
      "mock",
    ]);
  });
});

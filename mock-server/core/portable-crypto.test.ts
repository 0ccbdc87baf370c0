/**
 * The plain-JavaScript SHA-256 and HMAC against node:crypto, on inputs around the 64-byte block and
 * 56-byte padding boundaries, multi-byte text and keys longer than a block.
 */
import { createHash, createHmac, randomBytes } from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import { hmacSha256, sha256 } from "./portable-crypto.js";

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");
const LENGTHS = [0, 1, 3, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000, 70_000];

describe("portable SHA-256", () => {
  it.each(LENGTHS)("matches node:crypto on %i random bytes", (length) => {
    const data = randomBytes(length);
    expect(hex(sha256(data))).toBe(createHash("sha256").update(data).digest("hex"));
  });

  it("matches the FIPS 180-4 example and UTF-8 text", () => {
    expect(hex(sha256(new TextEncoder().encode("abc")))).toBe(
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
    const text = "clé API — 鍵 🔑";
    expect(hex(sha256(new TextEncoder().encode(text)))).toBe(createHash("sha256").update(text, "utf8").digest("hex"));
  });
});

describe("portable HMAC-SHA256", () => {
  it.each([0, 1, 32, 63, 64, 65, 200])("matches node:crypto with a %i-byte key", (keyLength) => {
    const key = randomBytes(keyLength);
    const message = randomBytes(300);
    expect(hex(hmacSha256(key, message))).toBe(createHmac("sha256", key).update(message).digest("hex"));
  });
});

describe("portable randomUUID", () => {
  it("makes version 4 UUIDs from getRandomValues where randomUUID is missing", async () => {
    const { randomUUID } = await import("./portable-crypto.js");
    const real = globalThis.crypto;
    vi.stubGlobal("crypto", { getRandomValues: (a: Uint8Array) => real.getRandomValues(a) });
    try {
      const ids = new Set(Array.from({ length: 200 }, () => randomUUID()));
      expect(ids.size).toBe(200);
      for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});

import { describe, expect, it } from "vitest";
import { parseStoreAddress, where } from "./address.js";

describe("--store addresses", () => {
  it("reads one address or a list of seeds, with a password, TLS and a database", () => {
    expect(parseStoreAddress("redis://127.0.0.1:6379")).toEqual({
      tls: false,
      seeds: [{ host: "127.0.0.1", port: 6379 }],
    });
    expect(parseStoreAddress("rediss://user:p%40ss@a:7000,b:7001,[::1]:7002/")).toEqual({
      tls: true,
      username: "user",
      password: "p@ss",
      seeds: [
        { host: "a", port: 7000 },
        { host: "b", port: 7001 },
        { host: "::1", port: 7002 },
      ],
    });
    expect(parseStoreAddress("redis://:secret@h/3")).toEqual({
      tls: false,
      password: "secret",
      seeds: [{ host: "h", port: 6379 }],
      db: 3,
    });
  });

  it("refuses what it cannot read, and never shows a password", () => {
    expect(() => parseStoreAddress("http://h:1")).toThrow(/expected redis:\/\//);
    expect(() => parseStoreAddress("redis://h:1/x")).toThrow(/database must be a number/);
    expect(() => parseStoreAddress("redis://:pw@h:1,:2")).toThrow(/cannot read the address ":2"/);
    expect(() => parseStoreAddress("redis://:pw@h:1,:2")).not.toThrow(/pw/);
    expect(where("redis://user:pw@a:1,b:2/0?password=pw")).toBe("redis://user@a:1,b:2/0");
    expect(where("redis://:pw@a:1/")).toBe("redis://a:1");
    expect(where("redis://127.0.0.1:6379")).toBe("redis://127.0.0.1:6379");
  });
});

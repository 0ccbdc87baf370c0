import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { SLOW_FILES } from "./slow-first-sequencer.js";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

describe("the slow files started first", () => {
  it("are test files that exist, each named once", () => {
    expect(SLOW_FILES.filter((file) => !existsSync(join(ROOT, file)) || !file.endsWith(".test.ts"))).toEqual([]);
    expect(new Set(SLOW_FILES).size).toBe(SLOW_FILES.length);
  });
});

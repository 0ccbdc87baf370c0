/** Dredd smoke run against the kit's mock: every 2xx transaction passes, the non-2xx ones are skipped and counted. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runDredd } from "../dredd/run.js";
import { hasMock, NO_MOCK, startKitMock, type Running } from "./support.js";

describe.skipIf(!hasMock)(`Dredd${hasMock ? "" : ` (skipped: ${NO_MOCK})`}`, () => {
  let mock: Running;
  beforeAll(async () => void (mock = await startKitMock()));
  afterAll(async () => mock?.close());

  it("passes against the mock and says how many transactions it skipped", async () => {
    const lines: string[] = [];
    const result = await runDredd({ baseUrl: mock.url, apiKey: mock.apiKey, log: (l) => lines.push(l) });
    expect(result.reason).toBeUndefined();
    expect(result.stats).toMatchObject({ failures: 0, errors: 0, passes: 17 });
    expect(result.skippedNon2xx).toBe(87);
    expect(lines.join("\n")).toMatch(/skipped 87 non-2xx transactions/);
    expect(result.code).toBe(0);
  });
});

describe.skipIf(!hasMock)(`Dredd via prism proxy --errors${hasMock ? "" : ` (skipped: ${NO_MOCK})`}`, () => {
  let mock: Running;
  beforeAll(async () => void (mock = await startKitMock()));
  afterAll(async () => mock?.close());

  it("passes when Prism validates every exchange in between", async () => {
    const lines: string[] = [];
    const result = await runDredd({
      baseUrl: mock.url,
      apiKey: mock.apiKey,
      viaPrism: true,
      log: (l) => lines.push(l),
    });
    expect(result.reason).toBeUndefined();
    expect(lines[0]).toMatch(/via prism proxy --errors at http:\/\/127\.0\.0\.1:\d+/);
    expect(result.stats).toMatchObject({ failures: 0, errors: 0, passes: 17 });
    expect(result.code).toBe(0);
  });
});

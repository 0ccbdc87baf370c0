/** Item 6 on its own: a delivery of conversation_started to a loopback receiver validates and verifies. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../cli.js";
import { hasMock, NO_MOCK, silentIo, startKitMock, type Running } from "./support.js";

describe.skipIf(!hasMock)(`webhook contract${hasMock ? "" : ` (skipped: ${NO_MOCK})`}`, () => {
  let mock: Running;
  beforeAll(async () => void (mock = await startKitMock()));
  afterAll(async () => mock?.close());

  it("E16 delivers a signed conversation_started that the receiver verifies", async () => {
    const { code, run } = await main(
      ["--base-url", mock.url, "--api-key", mock.apiKey, "--only", "signed-delivery", "--quiet"],
      {},
      silentIo,
    );
    const [result] = run!.results;
    expect(result.id).toBe("conversationStartedEvent.signed-delivery");
    expect(result.failures).toEqual([]);
    expect(result.outcome).toBe("passed");
    expect(code).toBe(0);
  });
});

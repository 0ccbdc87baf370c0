import { describe, expect, it } from "vitest";
import { REDACTED, Redactor } from "./redact.js";

describe("Redactor", () => {
  it("replaces secret headers and remembers their values", () => {
    const r = new Redactor(["upstream-key-123"]);
    r.rememberHeaders({ "x-api-key": "client-key-456", authorization: "Bearer tok-789xyz" });
    expect(r.headers({ "X-API-Key": "client-key-456", accept: "application/json", cookie: "a=b" })).toEqual({
      "X-API-Key": REDACTED,
      accept: "application/json",
      cookie: REDACTED,
    });
    expect(r.text("key client-key-456 and upstream-key-123 and tok-789xyz")).toBe(
      `key ${REDACTED} and ${REDACTED} and ${REDACTED}`,
    );
  });

  it("replaces credential fields at any depth and keeps the rest", () => {
    const r = new Redactor();
    const agent = {
      agentId: "a1",
      maxTokens: 200,
      settings: { webhooks: [{ webhookId: "w", secret: "whsec_abcdef", events: ["call.ended"] }] },
      trunkPassword: "p@ss",
      auth: { authType: "API_KEY", apiKey: { key: "X-Key", value: "v-secret-1" } },
      credentials: { username: "u", password: "p" },
    };
    expect(r.json(agent)).toEqual({
      agentId: "a1",
      maxTokens: 200,
      settings: { webhooks: [{ webhookId: "w", secret: REDACTED, events: ["call.ended"] }] },
      trunkPassword: REDACTED,
      auth: { authType: "API_KEY", apiKey: { key: "X-Key", value: REDACTED } },
      credentials: { username: REDACTED, password: REDACTED },
    });
    expect(agent.settings.webhooks[0].secret).toBe("whsec_abcdef");
  });

  it("scrubs a key from a query and from free text", () => {
    const r = new Redactor(["abcdef123"]);
    expect(r.url("/v1/calls?api_key=zzz&q=abcdef123")).toBe(`/v1/calls?api_key=REDACTED&q=${REDACTED}`);
  });

  it("keeps the door's own secrets however many client keys pass, and forgets the oldest of those", () => {
    const r = new Redactor(["upstream-key-1"]);
    for (let i = 0; i <= 10_000; i++) r.remember(`client-${i}-key`);
    expect(r.text("upstream-key-1 client-0-key client-10000-key")).toBe(`${REDACTED} client-0-key ${REDACTED}`);
  });
});

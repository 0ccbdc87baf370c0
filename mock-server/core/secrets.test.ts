import { describe, expect, it } from "vitest";
import {
  REDACTED,
  redactHeaders,
  redactJson,
  redactJsonText,
  SecretValues,
  secretsInHeaders,
  secretsInJson,
} from "./secrets.js";

/** Secrets of every kind the names cover, at several depths, beside fields that must stay. */
const AGENT = {
  agentId: "a1",
  maxTokens: 200,
  tokenizer: "kept",
  settings: { webhooks: [{ webhookId: "w", secret: "whsec_abcdef", events: ["call.ended"] }] },
  trunkPassword: "p@ss-word",
  auth: { authType: "API_KEY", apiKey: { key: "X-Key", value: "v-secret-1", position: "header" } },
  credentials: { username: "u-name", password: "p", nested: [{ token: "t-1" }], port: 5060 },
  headers: [
    { key: "Authorization", value: "Bearer pair-secret-9" },
    { key: "Accept", value: "application/json" },
  ],
  token: null,
  note: 'a "quoted" \\ text',
};

const REDACTED_AGENT = {
  agentId: "a1",
  maxTokens: 200,
  tokenizer: "kept",
  settings: { webhooks: [{ webhookId: "w", secret: REDACTED, events: ["call.ended"] }] },
  trunkPassword: REDACTED,
  auth: { authType: "API_KEY", apiKey: { key: "X-Key", value: REDACTED, position: "header" } },
  credentials: { username: REDACTED, password: REDACTED, nested: [{ token: REDACTED }], port: 5060 },
  headers: [
    { key: "Authorization", value: REDACTED },
    { key: "Accept", value: "application/json" },
  ],
  token: null,
  note: 'a "quoted" \\ text',
};

describe("redactJson", () => {
  it("replaces every secret field at any depth and keeps the rest, without touching the original", () => {
    expect(redactJson(AGENT)).toEqual(REDACTED_AGENT);
    expect(AGENT.settings.webhooks[0].secret).toBe("whsec_abcdef");
  });

  it("passes the other strings through the scrubber", () => {
    expect(redactJson({ message: "key abc123xyz seen" }, (t) => t.replace("abc123xyz", REDACTED))).toEqual({
      message: `key ${REDACTED} seen`,
    });
  });
});

describe("redactJsonText", () => {
  it("replaces what redactJson replaces, compact or indented, and keeps the layout", () => {
    for (const indent of [undefined, 2]) {
      const text = JSON.stringify(AGENT, null, indent);
      const out = redactJsonText(text);
      expect(JSON.parse(out)).toEqual(REDACTED_AGENT);
      expect(out).toBe(JSON.stringify(REDACTED_AGENT, null, indent));
    }
  });

  it("tells each secret it replaced", () => {
    const found: string[] = [];
    redactJsonText(JSON.stringify(AGENT), (v) => found.push(v));
    expect(found.sort()).toEqual(
      ["whsec_abcdef", "p@ss-word", "v-secret-1", "u-name", "p", "t-1", "Bearer pair-secret-9"].sort(),
    );
  });

  it("reads text cut anywhere: no secret survives, a split secret goes up to the cut", () => {
    const text = JSON.stringify(AGENT);
    const secrets = ["whsec_abcdef", "p@ss-word", "v-secret-1", "u-name", "pair-secret-9"];
    for (let cut = 1; cut < text.length; cut++) {
      const out = redactJsonText(text.slice(0, cut));
      for (const secret of secrets)
        for (let n = 3; n <= secret.length; n++)
          if (out.includes(`"${secret.slice(0, n)}`)) throw new Error(`cut at ${cut}: ${out}`);
    }
    expect(redactJsonText('{"a":1,"secret":"whsec_ab')).toBe(`{"a":1,"secret":"${REDACTED}"`);
    expect(redactJsonText('{"token":"ab\\')).toBe(`{"token":"${REDACTED}"`);
  });

  it("leaves text that names no secret, and text that is no JSON, as it is", () => {
    const plain = JSON.stringify({ data: [{ id: "x", name: "y" }], page: 0 });
    expect(redactJsonText(plain)).toBe(plain);
    expect(redactJsonText("token bucket says hi")).toBe("token bucket says hi");
  });
});

describe("the by-value net", () => {
  it("learns secrets from headers (bearer tokens, cookie values) and JSON, and scrubs them anywhere", () => {
    const secrets = new SecretValues();
    secretsInHeaders(
      { authorization: "Bearer tok-789xyz", cookie: "session=cookie-val-5; theme=dark", accept: "x-api-key-ish" },
      secrets.remember,
    );
    secretsInJson(AGENT, secrets.remember);
    expect(secrets.scrub("tok-789xyz cookie-val-5 whsec_abcdef p@ss-word dark")).toBe(
      `${REDACTED} ${REDACTED} ${REDACTED} ${REDACTED} dark`,
    );
    // Short values (the password "p") would scrub ordinary words: by name only.
    expect(secrets.scrub("p")).toBe("p");
    // An API key's header name and position are no secrets, though `apiKey` names one.
    expect(secrets.scrub("header X-Key")).toBe("header X-Key");
  });

  it("redacts secret headers whatever their case and scrubs the others", () => {
    const secrets = new SecretValues();
    secrets.remember("client-key-456");
    expect(
      redactHeaders(
        {
          "X-API-Key": "client-key-456",
          "x-echo": "got client-key-456",
          "set-cookie": ["a=1", "b=2"],
          gone: undefined,
        },
        secrets.scrub,
      ),
    ).toEqual({ "X-API-Key": REDACTED, "x-echo": `got ${REDACTED}`, "set-cookie": REDACTED });
  });
});

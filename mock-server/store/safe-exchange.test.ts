import { brotliCompressSync, constants, deflateSync, gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { REDACTED } from "../core/secrets.js";
import { CAPTURE_LIMIT, capped, type CapturedExchange } from "./journal.js";
import { redactedExchange, redactExchange, safeExchange } from "./safe-exchange.js";

const KEY = "client-key-secret-7";
const WEBHOOK_SECRET = "whsec-from-answer-123";

const exchange = (over: Partial<CapturedExchange> = {}): CapturedExchange => ({
  requestHeaders: { host: "127.0.0.1:1", "x-api-key": KEY, "content-type": "application/json" },
  responseHeaders: { "Content-Type": "application/json" },
  ...over,
});

/** A JSON answer with a webhook secret in it, longer than the limit when `items` is large. */
const answer = (items: number) =>
  JSON.stringify({
    data: Array.from({ length: items }, (_, i) => ({ webhookId: `w${i}`, secret: WEBHOOK_SECRET, url: "https://x" })),
    note: `quoted back: ${WEBHOOK_SECRET}`,
  });

describe("redactExchange", () => {
  it("replaces secrets by name everywhere and scrubs their values wherever they show up again", async () => {
    const safe = await redactExchange(
      `/v1/integrations/i1/auth?api_key=REDACTED&echo=${KEY}`,
      exchange({
        requestBody: { json: { authType: "BASIC", username: "u", password: "pw-SECRET-22", note: WEBHOOK_SECRET } },
        responseHeaders: { "Content-Type": "application/json", "x-seen": `${KEY} pw-SECRET-22` },
        responseBody: answer(1),
      }),
    );
    expect(safe.url).toBe(`/v1/integrations/i1/auth?api_key=${REDACTED}&echo=${REDACTED}`);
    expect(safe.requestHeaders["x-api-key"]).toBe(REDACTED);
    expect(safe.responseHeaders["x-seen"]).toBe(`${REDACTED} ${REDACTED}`);
    // The webhook secret was learnt from the answer and scrubbed from the request too.
    expect(JSON.parse((safe.request as { text: string }).text)).toEqual({
      authType: "BASIC",
      username: "u",
      password: REDACTED,
      note: REDACTED,
    });
    expect(JSON.parse(safe.response!.text)).toEqual({
      data: [{ webhookId: "w0", secret: REDACTED, url: "https://x" }],
      note: `quoted back: ${REDACTED}`,
    });
    const text = JSON.stringify(safe);
    for (const secret of [KEY, "pw-SECRET-22", WEBHOOK_SECRET]) expect(text).not.toContain(secret);
  });

  it("keeps a form's fields and its files by name and size", async () => {
    const safe = await redactExchange(
      "/v1/knowledge-bases",
      exchange({
        requestBody: {
          form: [
            { name: "name", value: "Docs" },
            { name: "token", value: "form-token-1" },
            { name: "file", file: { filename: "a.txt", bytes: 12, head: new Uint8Array([104, 105]) } },
          ],
        },
      }),
    );
    expect(safe.request).toEqual({
      form: [
        { name: "name", value: "Docs" },
        { name: "token", value: REDACTED },
        { name: "file", fileName: "a.txt", bytes: 12 },
      ],
    });
  });

  it("cuts a body over the limit, still without a secret, and says how large it was", async () => {
    const body = answer(2000);
    const safe = await redactExchange("/v1/webhooks", capped(exchange({ responseBody: body })));
    expect(body.length).toBeGreaterThan(CAPTURE_LIMIT);
    expect(safe.response).toMatchObject({ sentBytes: body.length, contentBytes: body.length, cut: true });
    expect(safe.response!.text.startsWith(body.slice(0, 100).replace(WEBHOOK_SECRET, REDACTED))).toBe(true);
    expect(safe.response!.text).not.toContain(WEBHOOK_SECRET);
    expect(safe.response!.text).not.toContain("whsec");
  });

  it("makes a JSON answer kept by reference into the text that was sent, cut and redacted alike", async () => {
    for (const items of [3, 2000]) {
      const value = JSON.parse(answer(items));
      const body = JSON.stringify(value);
      const kept = capped(exchange({ responseBody: body, responseJson: value }));
      expect(kept.responseBody).toBeUndefined();
      expect(await redactExchange("/v1/webhooks", kept)).toEqual(
        await redactExchange("/v1/webhooks", capped(exchange({ responseBody: body }))),
      );
    }
  });

  it.each([
    ["gzip", gzipSync],
    ["deflate", deflateSync],
    ["br", brotliCompressSync],
  ] as const)("decodes a %s body to its text, and redacts that", async (coding, compress) => {
    const body = answer(3);
    const sent = new Uint8Array(compress(Buffer.from(body)));
    const safe = await redactExchange(
      "/v1/webhooks",
      exchange({
        responseHeaders: { "content-type": "application/json", "content-encoding": coding },
        responseBody: sent,
      }),
    );
    expect(safe.response).toMatchObject({
      decoded: coding,
      sentBytes: sent.length,
      contentBytes: body.length,
      cut: false,
    });
    expect(JSON.parse(safe.response!.text).data).toHaveLength(3);
    expect(safe.response!.text).not.toContain(WEBHOOK_SECRET);
  });

  it.each([
    ["gzip", (b: Buffer) => gzipSync(b, { level: 1 })],
    ["br", (b: Buffer) => brotliCompressSync(b, { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } })],
  ] as const)("decodes a %s body cut at the limit as far as it goes", async (coding, compress) => {
    // Ids of pseudo-random digits: incompressible enough that the compressed body passes the limit.
    let seed = 7;
    const digits = () => Array.from({ length: 24 }, () => ((seed = (seed * 48271) % 2147483647) % 16).toString(16));
    const body = answer(6000).replace(/"w\d+"/g, () => `"${digits().join("")}"`);
    const whole = new Uint8Array(compress(Buffer.from(body)));
    expect(whole.length).toBeGreaterThan(CAPTURE_LIMIT);
    const headers = { "content-type": "application/json", "content-encoding": coding };
    const safe = await redactExchange(
      "/v1/webhooks",
      capped(exchange({ responseHeaders: headers, responseBody: whole })),
    );
    expect(safe.response).toMatchObject({ decoded: coding, sentBytes: whole.length, cut: true });
    expect(safe.response!.contentBytes).toBeUndefined();
    expect(safe.response!.text.length).toBeGreaterThan(CAPTURE_LIMIT / 2);
    expect(safe.response!.text.startsWith('{"data":[{"webhookId":')).toBe(true);
    expect(safe.response!.text).not.toContain(WEBHOOK_SECRET);
  });

  it("gives bytes that are no UTF-8 text as base64, and an unknown coding as it was sent", async () => {
    const bytes = new Uint8Array([0xff, 0xfe, 0x00, 0x80]);
    const binary = await redactExchange("/v1/x", exchange({ responseHeaders: {}, responseBody: bytes }));
    expect(binary.response).toMatchObject({ text: "//4AgA==", base64: true, sentBytes: 4 });
    const odd = await redactExchange(
      "/v1/x",
      exchange({ responseHeaders: { "content-encoding": "zstd" }, responseBody: bytes }),
    );
    expect(odd.response).toMatchObject({ text: "//4AgA==", base64: true });
    expect(odd.response!.decoded).toBeUndefined();
  });

  it("is given back as it was kept by a shared journal, without redacting twice", async () => {
    const safe = await redactExchange("/v1/webhooks", exchange({ responseBody: answer(1) }));
    const kept = redactedExchange(JSON.parse(JSON.stringify(safe)));
    expect(await safeExchange("/ignored", kept)).toEqual(safe);
  });
});

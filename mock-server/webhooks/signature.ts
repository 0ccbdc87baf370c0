/**
 * Webhook signatures, as assumed in the spec (the reference says only "HMAC with the webhook secret"):
 * header `X-Webhook-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`.
 * The timestamp is inside the signed content, so a captured delivery cannot be replayed later.
 * Receivers import verifyWebhookSignature from here (Node); the mock signs in sign.ts (Web Crypto).
 */
import { createHmac, timingSafeEqual } from "node:crypto";

export { SIGNATURE_HEADER, signWebhookPayload } from "./sign.js";
export const DEFAULT_TOLERANCE_SECONDS = 300;

export interface VerifyOptions {
  /** The raw request body, exactly as received. */
  payload: string;
  /** Value of the X-Webhook-Signature header. */
  header: string | undefined | null;
  secret: string;
  /** Oldest accepted age of the signature timestamp (and how far in the future it may be). */
  toleranceSeconds?: number;
  now?: Date;
}

export type VerifyResult = { ok: true; timestamp: number } | { ok: false; reason: string };

export function checkWebhookSignature(options: VerifyOptions): VerifyResult {
  const { payload, header, secret } = options;
  if (!header) return { ok: false, reason: "missing signature header" };
  const parts = new Map(
    header.split(",").map((p) => {
      const i = p.indexOf("=");
      return [p.slice(0, i).trim(), p.slice(i + 1).trim()] as const;
    }),
  );
  const t = Number(parts.get("t"));
  const v1 = parts.get("v1") ?? "";
  if (!Number.isInteger(t) || !/^[0-9a-f]{64}$/.test(v1)) return { ok: false, reason: "malformed signature header" };
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(now - t) > tolerance) return { ok: false, reason: `timestamp outside the ${tolerance} s tolerance` };
  const expected = createHmac("sha256", secret).update(`${t}.${payload}`, "utf8").digest();
  if (!timingSafeEqual(expected, Buffer.from(v1, "hex"))) return { ok: false, reason: "signature does not match" };
  return { ok: true, timestamp: t };
}

/** true when the header signs this exact payload with this secret, recently enough. */
export function verifyWebhookSignature(options: VerifyOptions): boolean {
  return checkWebhookSignature(options).ok;
}

/**
 * Signing webhook deliveries (the scheme is in signature.ts) with Web Crypto, so the same dispatcher
 * signs in Node and in a browser. Imported keys are kept per secret: importing costs more than signing.
 */
import { hmacSha256, subtleCrypto } from "../core/portable-crypto.js";

export const SIGNATURE_HEADER = "X-Webhook-Signature";

const keys = new Map<string, Promise<CryptoKey>>();
const KEY_CACHE_SIZE = 1000;

function keyFor(subtle: SubtleCrypto, secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    if (keys.size >= KEY_CACHE_SIZE) keys.delete(keys.keys().next().value!);
    key = subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    keys.set(secret, key);
  }
  return key;
}

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<payload>">`. */
export async function signWebhookPayload(payload: string, secret: string, at: Date): Promise<string> {
  const t = Math.floor(at.getTime() / 1000);
  const signed = new TextEncoder().encode(`${t}.${payload}`);
  const subtle = subtleCrypto();
  const mac = subtle
    ? new Uint8Array(await subtle.sign("HMAC", await keyFor(subtle, secret), signed))
    : hmacSha256(new TextEncoder().encode(secret), signed);
  let v1 = "";
  for (const byte of mac) v1 += byte.toString(16).padStart(2, "0");
  return `t=${t},v1=${v1}`;
}

/**
 * Why `header` does not sign `payload` with `secret`, or undefined when it does: the check a receiver
 * makes (signature.ts), without its time tolerance, in Web Crypto so that it runs where the mock runs
 * (the dashboard's `verified`, under MSW too).
 */
export async function signatureProblem(payload: string, header: string, secret: string): Promise<string | undefined> {
  const t = /(?:^|,)\s*t=(\d+)/.exec(header)?.[1];
  if (t === undefined || !/(?:^|,)\s*v1=[0-9a-f]{64}\b/.test(header)) return "malformed signature header";
  const expected = await signWebhookPayload(payload, secret, new Date(Number(t) * 1000));
  return expected === header ? undefined : "signature does not match the webhook's current secret";
}

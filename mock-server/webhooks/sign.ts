/**
 * Signing webhook deliveries (the scheme is in signature.ts) with Web Crypto, so the same dispatcher
 * signs in Node and in a browser. Imported keys are kept per secret: importing costs more than signing.
 */
export const SIGNATURE_HEADER = "X-Webhook-Signature";

const keys = new Map<string, Promise<CryptoKey>>();
const KEY_CACHE_SIZE = 1000;

function keyFor(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    if (keys.size >= KEY_CACHE_SIZE) keys.delete(keys.keys().next().value!);
    key = crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    keys.set(secret, key);
  }
  return key;
}

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<payload>">`. */
export async function signWebhookPayload(payload: string, secret: string, at: Date): Promise<string> {
  const t = Math.floor(at.getTime() / 1000);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", await keyFor(secret), new TextEncoder().encode(`${t}.${payload}`)));
  let v1 = "";
  for (const byte of mac) v1 += byte.toString(16).padStart(2, "0");
  return `t=${t},v1=${v1}`;
}

/**
 * A success answer documented in a media type that is not JSON (a QR code as image/png, a CSV export,
 * a PDF): sent as it is, with that Content-Type. The document's example when it gives one as text;
 * else the smallest valid body of the type the mock knows (a 1x1 PNG, a GIF pixel), a text for a
 * text type, and a few bytes drawn from the request's seed for anything else, so the same request
 * gets the same bytes.
 */
import type { Reply } from "../core/exchange.js";
import { Random } from "../core/random.js";

// The smallest valid images: what a client's <img> or image decoder accepts without complaint.
const PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
const GIF_1X1 = "R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7";

const bytesOf = (base64: string) => Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));

export function mediaAnswer(status: number, media: { type: string; example?: unknown }, seed: number): Reply {
  const type = media.type.split(";")[0].trim().toLowerCase();
  const contentType = media.type;
  if (typeof media.example === "string") return { status, text: { contentType, body: media.example } };
  if (type === "image/png") return { status, text: { contentType, body: bytesOf(PNG_1X1) } };
  if (type === "image/gif") return { status, text: { contentType, body: bytesOf(GIF_1X1) } };
  if (type.startsWith("text/")) return { status, text: { contentType, body: `mock ${type} answer ${seed}\n` } };
  const random = new Random(seed);
  const body = Uint8Array.from({ length: 16 }, () => Math.floor(random.next() * 256));
  return { status, text: { contentType, body } };
}

/**
 * What the Node doors bring the core: Node's one-shot SHA-256 (crypto.hash, Node >= 20.12) hashes an
 * API key synchronously, with no Hash object and no promise per request.
 */
import crypto, { createHash } from "node:crypto";
import type { Sha256 } from "../store/store.js";

export const nodeSha256: Sha256 =
  typeof crypto.hash === "function"
    ? (text) => crypto.hash("sha256", text, "buffer")
    : (text) => createHash("sha256").update(text, "utf8").digest();

/**
 * npm run webhooks:listen -- [--port 4020] [--secret whsec_...] [--tolerance 300]
 * A small receiver for webhook deliveries: prints each one and whether its signature verifies
 * (401 when it does not). --tolerance is the oldest signature timestamp accepted, in seconds.
 * Point a webhook's url at it (POST /__mock/workspaces/{id}/webhooks with {"url": ...}).
 */
import { createServer } from "node:http";
import { parseArgs } from "node:util";
import type { AddressInfo } from "node:net";
import { DEFAULT_TOLERANCE_SECONDS, SIGNATURE_HEADER, checkWebhookSignature } from "./signature.js";

function readArgs() {
  try {
    return parseArgs({
      options: {
        port: { type: "string", default: process.env.WEBHOOK_PORT ?? "4020" },
        host: { type: "string", default: "127.0.0.1" },
        secret: { type: "string", default: process.env.WEBHOOK_SECRET ?? "" },
        tolerance: { type: "string", default: process.env.WEBHOOK_TOLERANCE ?? String(DEFAULT_TOLERANCE_SECONDS) },
        help: { type: "boolean" },
      },
    }).values;
  } catch (error) {
    // An unknown or incomplete flag: one line, as for a bad value, not a stack trace.
    console.error((error as Error).message);
    process.exit(2);
  }
}

const values = readArgs();

if (values.help) {
  console.log(
    `Usage: npm run webhooks:listen -- [--port 4020] [--host 127.0.0.1] [--secret SECRET] [--tolerance ${DEFAULT_TOLERANCE_SECONDS}]  (or WEBHOOK_PORT, WEBHOOK_SECRET, WEBHOOK_TOLERANCE)`,
  );
  process.exit(0);
}

const toleranceSeconds = Number(values.tolerance);
if (values.tolerance.trim() === "" || !Number.isFinite(toleranceSeconds) || toleranceSeconds < 0) {
  console.error(`--tolerance must be a number of seconds, 0 or more, got "${values.tolerance}"`);
  process.exit(2);
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const payload = Buffer.concat(chunks).toString("utf8");
    const header = req.headers[SIGNATURE_HEADER.toLowerCase()] as string | undefined;
    const verdict = values.secret
      ? checkWebhookSignature({ payload, header, secret: values.secret, toleranceSeconds })
      : { ok: false as const, reason: "no --secret given: not verified" };
    console.log(
      `${new Date().toISOString()} ${req.method} ${req.url} event=${req.headers["x-webhook-event"] ?? "?"} webhook=${req.headers["x-webhook-id"] ?? "?"}`,
    );
    console.log(`  signature: ${verdict.ok ? "valid" : `NOT valid (${verdict.reason})`}`);
    console.log(`  ${payload}`);
    res.writeHead(verdict.ok || !values.secret ? 204 : 401).end();
  });
});

server.listen(Number(values.port), values.host, () => {
  // The port bound, not the one asked for: --port 0 picks a free one.
  const { port } = server.address() as AddressInfo;
  console.log(`Listening for webhook deliveries on http://${values.host}:${port}/`);
  console.log(
    values.secret
      ? `  Signatures checked with the secret given, timestamps accepted up to ${toleranceSeconds} s off`
      : "  No --secret: signatures are not checked",
  );
});

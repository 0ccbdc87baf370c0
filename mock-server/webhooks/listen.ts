/**
 * npm run webhooks:listen -- [--port 4020] [--secret whsec_...]
 * A small receiver for webhook deliveries: prints each one and whether its signature verifies.
 * Point a webhook's url at it (POST /__mock/workspaces/{id}/webhooks with {"url": ...}).
 */
import { createServer } from "node:http";
import { parseArgs } from "node:util";
import { SIGNATURE_HEADER, checkWebhookSignature } from "./signature.js";

const { values } = parseArgs({
  options: {
    port: { type: "string", default: process.env.WEBHOOK_PORT ?? "4020" },
    host: { type: "string", default: "127.0.0.1" },
    secret: { type: "string", default: process.env.WEBHOOK_SECRET ?? "" },
    help: { type: "boolean" },
  },
});

if (values.help) {
  console.log("Usage: npm run webhooks:listen -- [--port 4020] [--host 127.0.0.1] [--secret SECRET]  (or WEBHOOK_PORT, WEBHOOK_SECRET)");
  process.exit(0);
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const payload = Buffer.concat(chunks).toString("utf8");
    const header = req.headers[SIGNATURE_HEADER.toLowerCase()] as string | undefined;
    const verdict = values.secret
      ? checkWebhookSignature({ payload, header, secret: values.secret })
      : { ok: false as const, reason: "no --secret given: not verified" };
    console.log(`${new Date().toISOString()} ${req.method} ${req.url} event=${req.headers["x-webhook-event"] ?? "?"} webhook=${req.headers["x-webhook-id"] ?? "?"}`);
    console.log(`  signature: ${verdict.ok ? "valid" : `NOT valid (${verdict.reason})`}`);
    console.log(`  ${payload}`);
    res.writeHead(verdict.ok || !values.secret ? 204 : 401).end();
  });
});

server.listen(Number(values.port), values.host, () => {
  console.log(`Listening for webhook deliveries on http://${values.host}:${values.port}/`);
});

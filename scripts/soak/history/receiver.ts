/**
 * The webhook receiver of the history checker, on loopback: it records every delivery request
 * (path, headers, raw body, wall time, the status it answered) and answers by a rule derived from the
 * payload alone, so that some deliveries are retried: the first attempt of an event whose id hashes
 * to 0 mod 3 gets 500, every other attempt 204. Deliveries of the real replicas come to /real/...,
 * those of the in-process model to /twin/..., so the two are told apart and compared.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  path: string;
  /** X-Webhook-Signature. */
  signature: string | undefined;
  webhookId: string | undefined;
  event: string | undefined;
  payload: string;
  /** eventId from the payload ("" when it does not parse). */
  eventId: string;
  at: number;
  answered: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** The rule: 500 for the first attempt of one event in three (by its id), 204 otherwise. */
export function answerFor(eventId: string, attemptsSeenBefore: number): number {
  return attemptsSeenBefore === 0 && hash(eventId) % 3 === 0 ? 500 : 204;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const seen = new Map<string, number>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const payload = Buffer.concat(chunks).toString("utf8");
      let eventId = "";
      try {
        eventId = String(JSON.parse(payload).eventId ?? "");
      } catch {
        /* recorded as is; the signature check reports it */
      }
      const key = `${req.url}|${eventId}`;
      const before = seen.get(key) ?? 0;
      seen.set(key, before + 1);
      const answered = answerFor(eventId, before);
      const header = (name: string) => {
        const v = req.headers[name];
        return Array.isArray(v) ? v[0] : v;
      };
      received.push({
        path: req.url ?? "",
        signature: header("x-webhook-signature"),
        webhookId: header("x-webhook-id"),
        event: header("x-webhook-event"),
        payload,
        eventId,
        at: Date.now(),
        answered,
      });
      res.writeHead(answered).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

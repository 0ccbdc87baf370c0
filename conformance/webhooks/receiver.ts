/** A webhook receiver on loopback, on an ephemeral port: it keeps every delivery exactly as received. */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface Delivery {
  headers: Record<string, string | string[] | undefined>;
  rawBody: string;
  receivedAt: Date;
}

export interface Receiver {
  url: string;
  deliveries: Delivery[];
  /** Resolves with the first delivery matching `predicate`, or undefined after `timeoutMs`. */
  waitFor(predicate: (d: Delivery) => boolean, timeoutMs: number): Promise<Delivery | undefined>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const deliveries: Delivery[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      deliveries.push({
        headers: req.headers,
        rawBody: Buffer.concat(chunks).toString("utf8"),
        receivedAt: new Date(),
      });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    deliveries,
    async waitFor(predicate, timeoutMs) {
      const until = Date.now() + timeoutMs;
      while (Date.now() < until) {
        const found = deliveries.find(predicate);
        if (found) return found;
        await new Promise((r) => setTimeout(r, 25));
      }
      return deliveries.find(predicate);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Webhook receivers on loopback for the soak: /ok answers 204, /fail answers 500 (so deliveries are
 * retried and end failed). Only counts are kept, so the soak itself does not grow.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface CountingReceiver {
  okUrl: string;
  failUrl: string;
  counts: { ok: number; fail: number };
  close(): Promise<void>;
}

export async function startCountingReceiver(): Promise<CountingReceiver> {
  const counts = { ok: 0, fail: 0 };
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const fail = req.url === "/fail";
      counts[fail ? "fail" : "ok"]++;
      res.writeHead(fail ? 500 : 204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    okUrl: `http://127.0.0.1:${port}/ok`,
    failUrl: `http://127.0.0.1:${port}/fail`,
    counts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

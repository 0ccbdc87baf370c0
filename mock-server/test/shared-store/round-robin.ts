/**
 * A round-robin HTTP proxy in front of several mocks sharing one store: request 1 goes to
 * targets[0], request 2 to targets[1], and so on, whatever client connection it arrives on, so a
 * test's consecutive calls (a create, then a read) land on different processes. Bodies stream both
 * ways and status, headers and body come back as the target sent them.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface RoundRobinProxy {
  /** http://127.0.0.1:PORT */
  url: string;
  /** Requests sent to each target, by the index in `targets`. */
  counts: number[];
  /** Stops listening, drops every client connection and the agents' pooled connections. */
  close(): Promise<void>;
}

/**
 * Hop-by-hop headers (RFC 9110 7.6.1): about one connection, not the message, so neither leg passes
 * them on; each keeps its own keep-alive. Transfer-Encoding stays: Node frames the body by it.
 */
const HOP_BY_HOP = ["connection", "keep-alive", "proxy-connection", "upgrade"];

/** Raw headers (name, value, name, value...) without `names`: case and repeats (Set-Cookie) kept. */
function withoutHeaders(rawHeaders: string[], names: string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (!names.includes(rawHeaders[i].toLowerCase())) kept.push(rawHeaders[i], rawHeaders[i + 1]);
  }
  return kept;
}

export async function startRoundRobinProxy(targets: string[]): Promise<RoundRobinProxy> {
  if (targets.length === 0) throw new Error("round-robin proxy: no targets");
  const upstreams = targets.map((target) => ({ target: new URL(target), agent: new http.Agent({ keepAlive: true }) }));
  const counts = targets.map(() => 0);
  let next = 0;

  const server = http.createServer((req, res) => {
    const index = next;
    next = (next + 1) % upstreams.length;
    counts[index]++;
    const { target, agent } = upstreams[index];
    // Host names the target, as if the client had asked it directly.
    const headers = [...withoutHeaders(req.rawHeaders, [...HOP_BY_HOP, "host"]), "Host", target.host];
    const forwarded = http.request({
      hostname: target.hostname,
      port: target.port,
      method: req.method,
      path: req.url,
      headers,
      agent,
    });

    // A target that cannot be reached gets a 502; one that accepted the connection and then tore it
    // down (a fault rule's reset) tears down the client's too, so the client sees what it would direct.
    const resetClient = () => void (!req.socket.destroyed && req.socket.resetAndDestroy());
    let connected = false;
    forwarded.once("socket", (socket) => {
      if (socket.connecting) socket.once("connect", () => (connected = true));
      else connected = true;
    });
    forwarded.once("error", (error) => {
      if (res.destroyed || res.writableEnded) return; // the client left first (see below)
      if (connected || res.headersSent) return resetClient();
      res
        .writeHead(502, { "Content-Type": "application/json" })
        .end(JSON.stringify({ error: `proxy: ${error.message}` }));
    });
    forwarded.once("response", (reply) => {
      res.writeHead(reply.statusCode!, reply.statusMessage, withoutHeaders(reply.rawHeaders, HOP_BY_HOP));
      reply.pipe(res);
      // Cut off mid-body: the client must not take the truncated body for a whole one.
      reply.once("error", resetClient);
      reply.once("close", () => void (!reply.complete && resetClient()));
    });
    // A client that goes away mid-exchange: stop the target's side as well.
    res.once("close", () => void (!res.writableFinished && forwarded.destroy()));
    req.pipe(forwarded);
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      for (const { agent } of upstreams) agent.destroy();
      await closed;
    },
  };
}

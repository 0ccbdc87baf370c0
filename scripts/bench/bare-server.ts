/**
 * Targets (a) and (b) of the comparison, run as a child process:
 *   node --import tsx scripts/bench/bare-server.ts express|http PORT FIXTURES.json
 * Each answers every bench request with the mock's own response bytes for it, held as a constant:
 * (a) through an Express 5 app with one route per request, the ceiling for an Express app;
 * (b) through node:http with one Map lookup, the ceiling for Node.
 * A request body is read to its end before the answer, as any server must, so the upload row
 * still moves its megabyte.
 */
import { readFileSync } from "node:fs";
import http from "node:http";
import express from "express";

export interface Fixture {
  method: string;
  /** Path without the query. */
  path: string;
  status: number;
  contentType: string;
  bodyBase64: string;
}

interface Canned {
  status: number;
  headers: Record<string, string | number>;
  body: Buffer;
}

function canned(f: Fixture): Canned {
  const body = Buffer.from(f.bodyBase64, "base64");
  return { status: f.status, headers: { "Content-Type": f.contentType, "Content-Length": body.length }, body };
}

function answerAfterBody(req: http.IncomingMessage, res: http.ServerResponse, reply: Canned): void {
  req.on("end", () => res.writeHead(reply.status, reply.headers).end(reply.body));
  req.resume();
}

const HEALTH: Fixture = {
  method: "GET",
  path: "/__mock/health",
  status: 200,
  contentType: "application/json",
  bodyBase64: Buffer.from('{"status":"ok"}').toString("base64"),
};

function expressServer(fixtures: Fixture[]): http.Server {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  for (const f of fixtures) {
    const reply = canned(f);
    app[f.method.toLowerCase() as "get" | "post" | "patch"](f.path, (req, res) => answerAfterBody(req, res, reply));
  }
  return http.createServer(app);
}

function nodeServer(fixtures: Fixture[]): http.Server {
  const routes = new Map(fixtures.map((f) => [`${f.method} ${f.path}`, canned(f)]));
  return http.createServer((req, res) => {
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const reply = routes.get(`${req.method} ${q === -1 ? url : url.slice(0, q)}`);
    if (reply) return answerAfterBody(req, res, reply);
    res.writeHead(404).end();
  });
}

const [kind, port, fixturesFile] = process.argv.slice(2);
const fixtures = [HEALTH, ...(JSON.parse(readFileSync(fixturesFile, "utf8")) as Fixture[])];
const server = kind === "express" ? expressServer(fixtures) : kind === "http" ? nodeServer(fixtures) : undefined;
if (!server) throw new Error(`usage: bare-server.ts express|http PORT FIXTURES.json (got ${kind})`);
server.keepAliveTimeout = 5_000;
server.listen(Number(port), "127.0.0.1");
process.on("SIGTERM", () => server.close(() => process.exit(0)) && server.closeAllConnections());

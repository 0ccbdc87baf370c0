/**
 * A staging deployment with a self-signed certificate: refused by default (exit 2, one line), accepted
 * with --insecure or with --ca naming the certificate, and the repro lines carry the same option.
 * The "deployment" is an HTTPS proxy on loopback in front of the kit's mock, with a certificate made by openssl.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../cli.js";
import { curlLine, send } from "../lib/http.js";
import { hasMock, NO_MOCK, startKitMock, type Running } from "./support.js";

function hasOpenssl(): boolean {
  try {
    execFileSync("openssl", ["version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

const skip = !hasMock ? NO_MOCK : !hasOpenssl() ? "openssl is not installed (.ci/run installs it)" : undefined;

describe.skipIf(!!skip)(`TLS options${skip ? ` (skipped: ${skip})` : ""}`, () => {
  const dir = mkdtempSync(join(tmpdir(), "conformance-tls-"));
  let mock: Running;
  let server: Server;
  let url: string;
  beforeAll(async () => {
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        join(dir, "key.pem"),
        "-out",
        join(dir, "cert.pem"),
        "-days",
        "2",
        "-subj",
        "/CN=127.0.0.1",
        "-addext",
        "subjectAltName=IP:127.0.0.1",
      ],
      { stdio: "ignore" },
    );
    mock = await startKitMock();
    server = createServer(
      { key: readFileSync(join(dir, "key.pem")), cert: readFileSync(join(dir, "cert.pem")) },
      async (req, res) => {
        const chunks: Buffer[] = [];
        for await (const c of req) chunks.push(c as Buffer);
        const headers = new Headers();
        for (const [k, v] of Object.entries(req.headers))
          if (v !== undefined && k !== "host" && k !== "content-length")
            headers.set(k, Array.isArray(v) ? v.join(",") : v);
        const upstream = await fetch(`${mock.url}${req.url}`, {
          method: req.method,
          headers,
          body: req.method === "GET" ? undefined : Buffer.concat(chunks),
        });
        const out: Record<string, string> = {};
        upstream.headers.forEach((v, k) => {
          if (!["content-length", "content-encoding", "transfer-encoding"].includes(k)) out[k] = v;
        });
        res.writeHead(upstream.status, out).end(Buffer.from(await upstream.arrayBuffer()));
      },
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => {
      server?.closeAllConnections();
      server ? server.close(() => resolve()) : resolve();
    });
    await mock?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses a self-signed certificate by default, with one line", async () => {
    const err: string[] = [];
    const { code } = await main(
      ["--base-url", url, "--api-key", mock.apiKey, "--only", "listAgents.defaults"],
      {},
      { out: () => {}, err: (t) => err.push(t) },
    );
    expect(code).toBe(2);
    expect(err).toHaveLength(1);
    expect(err[0]).toMatch(/cannot start: target unreachable: .*(self.signed|SELF_SIGNED)/i);
  });

  it.each([
    ["--insecure", () => ["--insecure"], /^curl -sS -i -k -X /],
    ["--ca FILE", () => ["--ca", join(dir, "cert.pem")], /^curl -sS -i --cacert '.*cert\.pem' -X /],
  ])("%s accepts it, and repro lines say so", async (_name, extra, curl) => {
    // --target mock: the control plane behind this proxy is the kit's, reached through the same TLS options.
    const { code, run } = await main(
      [
        "--base-url",
        url,
        "--api-key",
        mock.apiKey,
        "--only",
        "/listAgents\\.(defaults|invalid-params)/",
        "--quiet",
        ...extra(),
      ],
      {},
      { out: () => {}, err: () => {} },
    );
    expect(run!.results.map((r) => `${r.id} ${r.outcome}`)).toEqual([
      "listAgents.defaults passed",
      "listAgents.invalid-params passed",
    ]);
    expect(code).toBe(0);
    expect(run!.target.kind).toBe("mock");
    // A repro line carries the option for curl.
    const exchange = await send(
      {
        baseUrl: url,
        apiKey: "k",
        tls: extra()[0] === "--insecure" ? { insecure: true } : { caFile: join(dir, "cert.pem") },
      },
      { method: "GET", path: "/v1/agents" },
    );
    expect(exchange.status).toBe(401);
    expect(curlLine(exchange)).toMatch(curl);
  });
});

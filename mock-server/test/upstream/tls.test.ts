/**
 * The upstream door in front of an HTTPS deployment whose certificate a private CA signs (made here with
 * openssl, as conformance/test/tls.test.ts does): with `upstreamCa` the answer comes through, without it
 * the door refuses the certificate and answers 502 saying so, naming the upstream's host:port.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startMock, type RunningMock } from "../../server.js";
import { expectErrorBody } from "../harness.js";
import { jsonAnswer, send, startRawUpstream, type RawUpstream } from "./raw-upstream.js";

function hasOpenssl(): boolean {
  try {
    execFileSync("openssl", ["version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

const skip = hasOpenssl() ? undefined : "openssl is not installed (.ci/run installs it)";

/** A CA, and a certificate for 127.0.0.1 it signs: the PEM texts. */
function privateCa(dir: string): { ca: string; key: string; cert: string } {
  const at = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync("openssl", args, { stdio: "ignore" });
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  openssl(
    "req",
    "-x509",
    ...ec,
    "-keyout",
    at("ca.key"),
    "-out",
    at("ca.pem"),
    "-days",
    "2",
    "-subj",
    "/CN=Door Test CA",
  );
  openssl("req", ...ec, "-keyout", at("server.key"), "-out", at("server.csr"), "-subj", "/CN=127.0.0.1");
  writeFileSync(
    at("server.ext"),
    "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n",
  );
  openssl(
    "x509",
    "-req",
    "-in",
    at("server.csr"),
    "-CA",
    at("ca.pem"),
    "-CAkey",
    at("ca.key"),
    "-CAcreateserial",
    "-out",
    at("server.pem"),
    "-days",
    "2",
    "-extfile",
    at("server.ext"),
  );
  return {
    ca: readFileSync(at("ca.pem"), "utf8"),
    key: readFileSync(at("server.key"), "utf8"),
    cert: readFileSync(at("server.pem"), "utf8"),
  };
}

const CALLS_PAGE = { data: [{ callId: "call-tls-1", status: "ended" }], hasMore: false };

describe.skipIf(!!skip)(`an HTTPS upstream signed by a private CA${skip ? ` (skipped: ${skip})` : ""}`, () => {
  const dir = mkdtempSync(join(tmpdir(), "door-tls-"));
  let pems: { ca: string; key: string; cert: string };
  let up: RawUpstream;
  let door: RunningMock | undefined;
  beforeAll(async () => {
    pems = privateCa(dir);
    up = await startRawUpstream(jsonAnswer(200, CALLS_PAGE), { key: pems.key, cert: pems.cert });
  });
  afterEach(async () => {
    await door?.close();
    door = undefined;
  });
  afterAll(async () => {
    await up?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("with upstreamCa: the upstream's answer, 200", async () => {
    door = await startMock({ upstream: up.url, upstreamCa: pems.ca, log: () => undefined });
    const res = await send(`${door.url}/v1/calls`, { headers: { "X-API-Key": "client-key-7" } });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual(CALLS_PAGE);
    expect(res.headers["x-mock-source"]).toBe("upstream");
    expect(up.seen.at(-1)).toMatchObject({ method: "GET", url: "/v1/calls" });
  });

  it("without it: 502, the TLS refusal named with the upstream's host:port", async () => {
    const before = up.seen.length;
    door = await startMock({ upstream: up.url, log: () => undefined });
    const res = await send(`${door.url}/v1/calls`, { headers: { "X-API-Key": "client-key-7" } });
    expect(res.status).toBe(502);
    const error = res.json();
    expectErrorBody(error, 502, "/v1/calls");
    expect(error.message).toContain(`127.0.0.1:${up.port}`);
    expect(error.message).toMatch(/TLS refused/);
    expect(up.seen).toHaveLength(before);
  });
});

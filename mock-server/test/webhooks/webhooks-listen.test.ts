/**
 * `npm run webhooks:listen` as a process: it answers 204 to a delivery whose signature verifies and
 * 401 otherwise, and --tolerance sets how old a signature timestamp may be.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { SIGNATURE_HEADER, signWebhookPayload } from "../../webhooks/sign.js";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const SECRET = "whsec_listen_test";
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

function launch(args: string[]) {
  const env = { ...process.env };
  for (const name of ["WEBHOOK_PORT", "WEBHOOK_SECRET", "WEBHOOK_TOLERANCE"]) delete env[name];
  const child = spawn(process.execPath, ["--import", "tsx", "mock-server/webhooks/listen.ts", "--port", "0", ...args], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (c) => (stdout += c));
  child.stderr!.on("data", (c) => (stderr += c));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

/** Starts the listener and answers the URL it printed (the port it bound, with --port 0). */
async function listen(args: string[]): Promise<{ url: string; stdout: () => string }> {
  const run = launch(["--secret", SECRET, ...args]);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`listener did not start:\n${run.stdout()}\n${run.stderr()}`)),
      20_000,
    );
    run.child.stdout!.on("data", () => {
      const found = /on (http:\/\/127\.0\.0\.1:(\d+))\/\n[^]*\n/.exec(run.stdout());
      if (found && found[2] !== "0") {
        clearTimeout(timer);
        resolve(found[1]);
      }
    });
    void run.exited.then((code) => reject(new Error(`listener exited with ${code}:\n${run.stderr()}`)));
  });
  return { url, stdout: run.stdout };
}

async function deliver(url: string, ageSeconds: number): Promise<number> {
  const payload = JSON.stringify({ event: "conversation_started", data: { id: "c-1" } });
  const signature = await signWebhookPayload(payload, SECRET, new Date(Date.now() - ageSeconds * 1000));
  const response = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", [SIGNATURE_HEADER]: signature },
    body: payload,
  });
  return response.status;
}

describe("npm run webhooks:listen", () => {
  it("accepts a signature 200 s old with the default tolerance (300 s)", async () => {
    const { url, stdout } = await listen([]);
    expect(stdout()).toContain("up to 300 s");
    expect(await deliver(url, 200)).toBe(204);
    expect(await deliver(url, 400)).toBe(401);
  });

  it("refuses it with --tolerance 100, and says why", async () => {
    const { url, stdout } = await listen(["--tolerance", "100"]);
    expect(stdout()).toContain("up to 100 s");
    expect(await deliver(url, 200)).toBe(401);
    expect(await deliver(url, 50)).toBe(204);
    expect(stdout()).toContain("timestamp outside the 100 s tolerance");
  });

  it.each(["-5", "soon", ""])("exits 2 with one line for --tolerance=%j", async (value) => {
    const run = launch([`--tolerance=${value}`]);
    expect(await run.exited).toBe(2);
    expect(run.stderr().trim().split("\n")).toEqual([
      `--tolerance must be a number of seconds, 0 or more, got "${value}"`,
    ]);
  });
});

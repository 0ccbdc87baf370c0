/**
 * Crash-safe cleanup on a foreign target: the ledger file is written before each change, so a run
 * killed with -9 right after it changed a phone number's label leaves a list that `cleanup` puts back
 * (and a second cleanup changes nothing more); SIGTERM puts back what the running rule changed before
 * the process exits. The target is the kit's mock behind the test gateway, taken for a foreign one.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../cli.js";
import { latestByItem, readLedger } from "../fixtures/ledger-file.js";
import { startGateway, type Gateway } from "./gateway/gateway.js";
import { hasMock, NO_MOCK, startKitMock, type Running } from "./support.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

describe.skipIf(!hasMock)(`cleanup after a stopped run${hasMock ? "" : ` (skipped: ${NO_MOCK})`}`, () => {
  let mock: Running;
  let dir: string;
  beforeAll(async () => {
    mock = await startKitMock({ clock: "real" });
    dir = mkdtempSync(join(tmpdir(), "cleanup-"));
  });
  afterAll(async () => {
    await mock?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The phone numbers as the API lists them, read from the mock directly (not through the gateway). */
  const phoneNumbers = async () =>
    (await (await fetch(`${mock.url}/v1/phone-number?size=1000`, { headers: { "X-API-Key": mock.apiKey } })).json())
      .data;

  /**
   * Starts the CLI as a process through a gateway that sends it `signal` the moment the target has
   * applied the run's first label change (an E15 answer naming the run), before the answer gets back.
   */
  async function runUntilChanged(
    signal: NodeJS.Signals,
    ledger: string,
  ): Promise<{ gateway: Gateway; exit: Promise<number | null>; child: ChildProcess; output: () => string }> {
    let child: ChildProcess | undefined;
    let sent = false;
    const gateway = await startGateway({
      upstream: mock.url,
      rewrite: (req, res) => {
        // Once: a second signal would mean "stop at once".
        if (
          !sent &&
          req.method === "PATCH" &&
          /"friendlyName":"conformance-[^"]* label"/.test(res.body.toString("utf8"))
        )
          sent = Boolean(child?.kill(signal));
        return undefined;
      },
    });
    let output = "";
    child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "conformance/cli.ts",
        "--base-url",
        gateway.url,
        "--api-key",
        mock.apiKey,
        "--target",
        "foreign",
        "--only",
        "updatePhoneNumber.by-e164",
        "--ledger",
        ledger,
      ],
      { cwd: root, stdio: ["ignore", "pipe", "pipe"] },
    );
    child.stdout!.on("data", (d) => (output += d));
    child.stderr!.on("data", (d) => (output += d));
    const exit = new Promise<number | null>((resolve) =>
      child!.on("exit", (code, sig) => resolve(code ?? (sig === "SIGKILL" ? 137 : null))),
    );
    return { gateway, exit, child, output: () => output };
  }

  async function cleanup(ledger: string, gateway: Gateway): Promise<{ code: number; out: string[] }> {
    const out: string[] = [];
    const { code } = await main(
      ["cleanup", "--ledger", ledger, "--base-url", gateway.url, "--api-key", mock.apiKey],
      {},
      { out: (t) => out.push(t), err: (t) => out.push(t) },
    );
    return { code, out };
  }

  const patches = (gateway: Gateway) => gateway.stats().log.filter((e) => e.method === "PATCH").length;

  it("kill -9 right after a change: the ledger has it, cleanup puts it back, a second cleanup changes nothing", async () => {
    const before = await phoneNumbers();
    const ledger = join(dir, "killed.jsonl");
    const { gateway, exit, output } = await runUntilChanged("SIGKILL", ledger);
    try {
      expect(await exit, output()).toBe(137);
      // Killed after the change took effect: the target keeps it, the ledger announced it.
      expect(await phoneNumbers()).not.toEqual(before);
      const pending = latestByItem(readLedger(ledger)).filter((r) => r.state === "changing");
      expect(pending).toHaveLength(1);
      expect(pending[0]).toMatchObject({
        kind: "phone number",
        replay: { method: "PATCH", expect: { friendlyName: expect.any(String) } },
      });

      const first = await cleanup(ledger, gateway);
      expect(first.code, first.out.join("\n")).toBe(0);
      expect(first.out.join("\n")).toMatch(/^restored phone number \+\d+$/m);
      expect(await phoneNumbers()).toEqual(before);

      const sent = patches(gateway);
      const second = await cleanup(ledger, gateway);
      expect(second.code).toBe(0);
      expect(second.out.join("\n")).toMatch(/nothing to put back/);
      expect(patches(gateway)).toBe(sent);
      expect(await phoneNumbers()).toEqual(before);
    } finally {
      await gateway.close();
    }
  }, 60_000);

  it("SIGTERM: the running rule puts back what it changed, then the process exits 143", async () => {
    const before = await phoneNumbers();
    const ledger = join(dir, "terminated.jsonl");
    const { gateway, exit, output } = await runUntilChanged("SIGTERM", ledger);
    try {
      expect(await exit, output()).toBe(143);
      expect(output()).toMatch(/SIGTERM: putting back/);
      expect(output()).toMatch(/INTERRUPTED \(SIGTERM\)/);
      expect(await phoneNumbers(), output()).toEqual(before);
      expect(
        latestByItem(readLedger(ledger))
          .filter((r) => r.kind === "phone number")
          .map((r) => r.state),
      ).toEqual(["restored"]);
      const after = await cleanup(ledger, gateway);
      expect(after.out.join("\n")).toMatch(/nothing to put back/);
    } finally {
      await gateway.close();
    }
  }, 60_000);

  it("cannot start without its ledger, or with a ledger written for another target", async () => {
    const gateway = await startGateway({ upstream: mock.url });
    try {
      const missing = await cleanup(join(dir, "none.jsonl"), gateway);
      expect(missing.code).toBe(2);
      expect(missing.out).toEqual([
        expect.stringMatching(/^conformance cleanup: cannot start: --ledger .* does not exist$/),
      ]);
      const other = join(dir, "other.jsonl");
      writeFileSync(
        other,
        `${JSON.stringify({ at: "", runId: "r", baseUrl: "https://staging.example.com", kind: "phone number", id: "+1", note: "", state: "changing" })}\n`,
      );
      const elsewhere = await cleanup(other, gateway);
      expect(elsewhere.code).toBe(2);
      expect(elsewhere.out[0]).toMatch(/written for https:\/\/staging\.example\.com/);
      expect(existsSync(other)).toBe(true);
    } finally {
      await gateway.close();
    }
  });
});

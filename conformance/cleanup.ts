/**
 * agent-platform-conformance cleanup --ledger FILE --base-url URL --api-key KEY
 *
 * Undoes what a run stopped before its end (kill -9, a lost CI runner) left on a foreign target: every
 * field the ledger file says was `changing` and never `restored` is put back with the request written
 * there before the change, and read back from the answer; every record the ledger lists as `left` with the
 * request that deletes it (the generic rules' collections) is deleted. Each is appended to the same file
 * as `restored` or `removed` (by cleanup), so a second cleanup finds nothing to do and changes nothing more.
 * The other records the run created are listed: the reference has no operation that deletes them.
 * Exit 0: everything that could be put back is; 1: something could not be; 2: cannot start.
 */
import { existsSync } from "node:fs";
import { LedgerFile, latestByItem, readLedger, type LedgerRecord } from "./fixtures/ledger-file.js";
import { send, type Connection, type TlsOptions } from "./lib/http.js";
import { Inconclusive, Transport, type TransportOptions } from "./transport/transport.js";

export interface CleanupOptions extends TransportOptions {
  ledgerPath: string;
  baseUrl: string;
  apiKey: string;
  tls?: TlsOptions;
}

export interface CleanupResult {
  code: number;
  restored: LedgerRecord[];
  failed: { record: LedgerRecord; why: string }[];
  left: LedgerRecord[];
}

export class CleanupCannotStart extends Error {}

export async function cleanup(options: CleanupOptions, out: (line: string) => void): Promise<CleanupResult> {
  if (!existsSync(options.ledgerPath)) throw new CleanupCannotStart(`--ledger ${options.ledgerPath} does not exist`);
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const records = readLedger(options.ledgerPath);
  const elsewhere = [...new Set(records.map((r) => r.baseUrl).filter((url) => url && url !== baseUrl))];
  if (elsewhere.length > 0)
    throw new CleanupCannotStart(
      `the ledger was written for ${elsewhere.join(", ")}, not ${baseUrl}: give that --base-url`,
    );
  const items = latestByItem(records);
  const pending = items.filter(
    (r) =>
      ((r.state === "changing" || r.state === "not-restored") && r.replay) || (r.state === "left" && r.replay?.removes),
  );
  const left = items.filter(
    (r) => (r.state === "left" && !r.replay?.removes) || r.state === "maybe-left" || r.state === "maybe-removed",
  );
  const ledger = new LedgerFile(options.ledgerPath);
  // Every put-back goes through the cleanup's own transport and TLS options.
  const connection: Connection = { baseUrl, tls: options.tls, transport: new Transport(options) };
  const result: CleanupResult = { code: 0, restored: [], failed: [], left };
  for (const record of pending) {
    const why = await putBack(connection, options.apiKey, record);
    const removes = record.replay?.removes === true;
    const settled: LedgerRecord = {
      ...record,
      at: new Date().toISOString(),
      state: removes ? (why ? "left" : "removed") : why ? "not-restored" : "restored",
      note:
        why ??
        (removes ? "removed by cleanup" : `put back by cleanup (${Object.keys(record.replay!.expect).join(", ")})`),
      by: "cleanup",
      replay: undefined,
    };
    ledger.append(settled);
    if (why) result.failed.push({ record, why });
    else result.restored.push(record);
    const done = removes ? "removed" : "restored";
    out(`${why ? `NOT ${done.toUpperCase()}` : done} ${record.kind} ${record.id}${why ? `: ${why}` : ""}`);
  }
  if (pending.length === 0) out("nothing to put back: every change in the ledger was put back");
  for (const record of left) out(`left on the target: ${record.kind} ${record.id} (${record.note})`);
  out(
    `${result.restored.length} put back, ${result.failed.length} could not be, ${left.length} record${left.length === 1 ? "" : "s"} the reference cannot delete`,
  );
  result.code = result.failed.length > 0 ? 1 : 0;
  return result;
}

/** Sends the put-back and checks the answer holds the old values; the reason when it does not. */
async function putBack(connection: Connection, apiKey: string, record: LedgerRecord): Promise<string | undefined> {
  const { method, path, body, expect, removes, credential } = record.replay!;
  try {
    const exchange = await send({ ...connection, apiKey }, { method, path, body, credential }, { idempotent: true });
    // A removal is done when the record is gone: deleted now (2xx), or already (404).
    if (removes)
      return (exchange.status >= 200 && exchange.status < 300) || exchange.status === 404
        ? undefined
        : `${method} ${path} answered ${exchange.status}`;
    if (exchange.status !== 200) return `${method} ${path} answered ${exchange.status}`;
    const answer = (exchange.json ?? {}) as Record<string, unknown>;
    const differing = Object.entries(expect).filter(([field, value]) => answer[field] !== value);
    return differing.length === 0
      ? undefined
      : `still differs in ${differing.map(([f, v]) => `${f} ${JSON.stringify(answer[f])} (was ${JSON.stringify(v)})`).join(", ")}`;
  } catch (error) {
    if (error instanceof Inconclusive) return `no real answer through the environment (${error.message})`;
    throw error;
  }
}

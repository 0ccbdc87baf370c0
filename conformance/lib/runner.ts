/**
 * Runs the suite against one target: decides mock or foreign (by proof, or as told), checks the key
 * once, builds the fixtures, runs the selected rules one after the other (lists must not move while a
 * rule walks them), puts back what each rule changed, and returns the results.
 */
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { detectTarget, type Detection, type TargetKind } from "../fixtures/control.js";
import { discoverFixtures, type IdOptions } from "../fixtures/discover.js";
import { mockFixtures } from "../fixtures/mock-fixtures.js";
import { LedgerFile } from "../fixtures/ledger-file.js";
import type { Fixtures } from "../fixtures/types.js";
import { documentRules } from "../generic/document-rules.js";
import { checkDocumentKey, documentFixtures } from "../generic/fixtures.js";
import { operationCatalog, type OperationSummary } from "../generic/catalog.js";
import { describePlacement } from "./credentials.js";
import { bundledDocument, type SuiteDocument } from "./document.js";
import type { EnvironmentReport } from "../transport/environment.js";
import { Inconclusive, Transport, type TransportOptions } from "../transport/transport.js";
import { send, TargetUnreachable, type Connection, type Exchange, type Target, type TlsOptions } from "./http.js";
import { runRule, type RuleResult, type RunEnv } from "./run-rule.js";

export type { RuleResult };
import type { Rule } from "./rule.js";
import type { Level } from "./schemas.js";

export interface RunOptions extends IdOptions, TransportOptions {
  baseUrl: string;
  apiKey: string;
  /** The mock's control token (--control-token), for a mock that guards its control plane. */
  controlToken?: string;
  level?: Level;
  readOnly?: boolean;
  only?: string;
  largeUploads?: boolean;
  /** --target: skip detection. */
  target?: TargetKind;
  tls?: TlsOptions;
  /** --second-api-key: a key of another workspace or account, for the isolation rules. */
  secondApiKey?: string;
  /** Extra rules (the fuzzer) appended to the selection. */
  extraRules?: Rule[];
  onExchange?: (exchange: Exchange) => void;
  /** Called once the target is known, before any rule: the first lines of a run. */
  onStart?: (lines: string[]) => void;
  onRuleDone?: (result: RuleResult) => void;
  /** Where the ledger file goes on a foreign target (default: a file named by the run id in the OS temp dir). */
  ledgerPath?: string;
  /** SIGINT or SIGTERM: no rule starts after it fires; the one running puts back what it changed. */
  signal?: AbortSignal;
  /**
   * The document to check (--spec: another one, generic rules only; in-process also a copy of this
   * API's spec with operations added, its hand-written rules kept). The bundled spec by default.
   */
  document?: SuiteDocument;
}

export interface RunResult {
  baseUrl: string;
  level: Level;
  isMock: boolean;
  target: Detection;
  readOnly: boolean;
  runId: string;
  startedAt: string;
  durationMs: number;
  results: RuleResult[];
  /** operationId -> status -> times seen. */
  coverage: Record<string, Record<string, number>>;
  /** operationId -> response time of every exchange, in ms. */
  timings: Record<string, number[]>;
  ledger: Fixtures["ledger"];
  notCovered: string[];
  /** Baseline entries that matched no failure of this run (report/baseline.ts). */
  staleBaseline?: string[];
  /** What the environment between the suite and the API did (rate limits, waits, retries, latency). */
  environment: EnvironmentReport;
  /** The ledger file this run appended to (foreign targets the run may change). */
  ledgerFile?: string;
  /** Set when SIGINT or SIGTERM stopped the run before its last rule. */
  interrupted?: string;
  /** The document the run checked: generated/openapi.json, or the --spec file. */
  document?: { source: string; handWritten: boolean };
  /** Every operation of the document, with whether its rules are hand-written or generic. */
  operations?: OperationSummary[];
}

export class RunCannotStart extends Error {}

export function matchesOnly(rule: Rule, pattern: string | undefined): boolean {
  if (!pattern) return true;
  const regex = /^\/(.*)\/$/.exec(pattern);
  const haystack = `${rule.group}/${rule.id}`;
  return regex ? new RegExp(regex[1], "i").test(haystack) : haystack.toLowerCase().includes(pattern.toLowerCase());
}

/** The rules a run with these options selects, in the order they run. */
export function selectRules(options: Pick<RunOptions, "only" | "extraRules" | "document">): Rule[] {
  return [...documentRules(options.document), ...(options.extraRules ?? [])].filter((r) =>
    matchesOnly(r, options.only),
  );
}

/** Setup mistakes found without a request: they exit 2 with one line. */
export function setupProblem(
  options: Pick<RunOptions, "baseUrl" | "only" | "extraRules" | "apiKey" | "secondApiKey" | "document">,
): string | undefined {
  const path = new URL(options.baseUrl).pathname.replace(/\/+$/, "");
  // This API's paths carry /v1 themselves; another document's base path is added unless the URL has it.
  if ((options.document ?? bundledDocument).handWritten && /\/v1$/i.test(path))
    return `--base-url ${options.baseUrl} ends in /v1: give the base address without it (the suite adds /v1 to every path), e.g. ${options.baseUrl.replace(/\/v1\/*$/i, "")}`;
  if (options.only && selectRules(options).length === 0) return `--only ${options.only} matches no rule (see --list)`;
  if (options.secondApiKey !== undefined && options.secondApiKey === options.apiKey)
    return "--second-api-key is the same key as --api-key: give a key of another workspace or account";
  return undefined;
}

/** One request before the rules: a key the target refuses is a setup mistake, not 58 failures. */
async function checkKey(target: Target, option: string): Promise<void> {
  const ex = await send(target, { method: "GET", path: "/v1/agents", query: { page: 0, size: 1 } });
  if (ex.status === 401 || ex.status === 403) {
    throw new RunCannotStart(
      `the target refuses ${option} (GET /v1/agents answered ${ex.status}${typeof (ex.json as { message?: unknown })?.message === "string" ? `: ${(ex.json as { message: string }).message}` : ""}): check the key`,
    );
  }
}

export async function runSuite(options: RunOptions): Promise<RunResult> {
  const started = Date.now();
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const problem = setupProblem(options);
  if (problem) throw new RunCannotStart(problem);
  // Every request of the run, fixtures and control plane included, goes through its connection: the
  // run's own transport and TLS options, shared with no other run in the process.
  const transport = new Transport(options);
  const connection = { baseUrl, tls: options.tls, transport, controlToken: options.controlToken };
  return await runWith(options, connection, transport, started);
}

async function runWith(
  options: RunOptions,
  connection: Connection,
  transport: Transport,
  started: number,
): Promise<RunResult> {
  const { baseUrl } = connection;
  const runId = `conformance-${new Date().toISOString().slice(0, 10)}-${randomBytes(3).toString("hex")}`;
  const readOnly = options.readOnly ?? false;
  const rules = selectRules(options);
  const document = options.document ?? bundledDocument;
  const probe: Target = { ...connection, apiKey: options.apiKey, credential: document.credential };
  let detection: Detection;
  let fixtures: Fixtures;
  let apiKey = options.apiKey;
  try {
    detection = await detectTarget(connection, options.target);
    const isMock = detection.kind === "mock";
    if (document.handWritten) await checkKey(probe, "--api-key");
    else await checkDocumentKey(document, probe, RunCannotStart);
    if (options.secondApiKey && document.handWritten)
      await checkKey({ ...probe, apiKey: options.secondApiKey }, "--second-api-key");
    if (!document.handWritten) {
      // Another document: none of this API's fixtures; the generic rules find or make the records they need.
      fixtures = documentFixtures(runId, { isMock, readOnly });
    } else if (isMock && !readOnly) {
      const made = await mockFixtures(connection, runId);
      fixtures = made.fixtures;
      apiKey = made.apiKey;
    } else {
      fixtures = await discoverFixtures(probe, runId, options, { isMock, readOnly });
    }
    if (options.secondApiKey) fixtures.secondKey = { apiKey: options.secondApiKey };
  } catch (error) {
    if (error instanceof RunCannotStart) throw error;
    if (error instanceof Inconclusive)
      throw new RunCannotStart(`the target gave no real answer while the run was being set up: ${error.message}`);
    if (error instanceof TargetUnreachable)
      throw new RunCannotStart(`target unreachable: ${baseUrl} (${error.message})`);
    if ((error as Error).name === "TimeoutError" || (error as Error).message === "fetch failed") {
      throw new RunCannotStart(
        `target unreachable: ${baseUrl} (${(error as Error).cause ?? (error as Error).message})`,
      );
    }
    throw new RunCannotStart(`could not set up fixtures: ${(error as Error).message}`);
  }
  fixtures.baseUrl = baseUrl;
  fixtures.document = document;
  // The ledger goes to disk as the run goes, so a killed run leaves a list `cleanup` can undo.
  if (detection.kind === "foreign" && !readOnly)
    fixtures.ledgerFile = new LedgerFile(
      options.ledgerPath ?? join(tmpdir(), "agent-platform-conformance", `${runId}.ledger.jsonl`),
    );
  const level: Level = options.level ?? (detection.kind === "mock" ? "assumed" : "documented");
  options.onStart?.([
    `Target ${baseUrl}: ${detection.kind === "mock" ? "the kit's mock" : "a foreign deployment"} (${detection.reason})`,
    `Level ${level}${options.level ? "" : " (the default for this target)"}${readOnly ? ", read-only" : ""}; ${rules.length} rules; run ${runId}`,
    documentLine(document, rules),
    `Pace ${transport.pacer.setting.kind === "auto" ? "auto (learnt from 429s)" : `${transport.pacer.currentPace}/s`}, concurrency ${transport.concurrency}, retries ${transport.retries}, timeout ${(transport.timeoutMs / 1000).toFixed(0)} s`,
    ...(detection.kind === "mock" && !readOnly && document.handWritten
      ? [`Fixtures in a workspace of the run's own, ${fixtures.control?.workspaceId}; only its clock moves`]
      : []),
    ...(fixtures.ledgerFile
      ? [
          `Ledger ${fixtures.ledgerFile.path} (written as the run goes; after a killed run: agent-platform-conformance cleanup --ledger ${fixtures.ledgerFile.path} --base-url ${baseUrl} --api-key "$KEY")`,
        ]
      : []),
  ]);
  fixtures.largeUploads = options.largeUploads;
  const target: Target = { ...connection, apiKey, onExchange: options.onExchange, credential: document.credential };
  const coverage: RunResult["coverage"] = {};
  const timings: RunResult["timings"] = {};
  for (const op of document.operations.values()) coverage[op.operationId] = {};
  const sink = {
    record: (op: string, exchange: Exchange) => {
      const seen = (coverage[op] ??= {});
      seen[exchange.status] = (seen[exchange.status] ?? 0) + 1;
      (timings[op] ??= []).push(exchange.durationMs);
    },
  };
  const env: RunEnv = {
    target,
    level,
    readOnly,
    fixtures,
    sink,
    reruns: transport.retries,
    stats: transport.stats,
    signal: options.signal,
  };
  const results = await runAll(rules, env, transport.concurrency, options.onRuleDone);
  await fixtures.cleanup();
  const inconclusive = results.filter((r) => r.outcome === "inconclusive").map((r) => r.id);
  return {
    baseUrl,
    level,
    isMock: detection.kind === "mock",
    target: detection,
    readOnly,
    runId,
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    results,
    coverage,
    timings,
    ledger: fixtures.ledger,
    notCovered: fixtures.notCovered,
    environment: transport.report(inconclusive),
    ledgerFile: fixtures.ledgerFile?.path,
    document: { source: document.source, handWritten: document.handWritten },
    operations: operationCatalog(document, documentRules(document)),
    ...(options.signal?.aborted
      ? { interrupted: String(options.signal.reason?.message ?? options.signal.reason) }
      : {}),
  };
}

/** The run's document in one line: where it is from, how many operations have which rules, where the key goes. */
function documentLine(document: SuiteDocument, rules: Rule[]): string {
  const catalog = operationCatalog(document, documentRules(document));
  const generic = catalog.filter((o) => o.rules === "generic").length;
  const selected = rules.filter(
    (r) => catalog.find((o) => o.operationId === r.operationId)?.rules === "generic",
  ).length;
  return `Document ${document.source}: ${catalog.length} operations, ${catalog.length - generic} with hand-written rules, ${generic} with generic rules (${selected} selected); key as ${describePlacement(document.credential)}`;
}

/**
 * Rules in order; a stretch of read-only rules runs `concurrency` at a time (they change nothing, so
 * no list moves under another), a rule that writes runs alone. Results keep the rules' order.
 */
async function runAll(
  rules: Rule[],
  env: RunEnv,
  concurrency: number,
  onDone?: (r: RuleResult) => void,
): Promise<RuleResult[]> {
  const results: RuleResult[] = [];
  for (let i = 0; i < rules.length && !env.signal?.aborted; ) {
    let end = i + 1;
    if (concurrency > 1 && rules[i].readOnly) while (end < rules.length && rules[end].readOnly) end++;
    const stretch = rules.slice(i, end);
    const done: RuleResult[] = new Array(stretch.length);
    let next = 0;
    const worker = async () => {
      while (next < stretch.length && !env.signal?.aborted) {
        const k = next++;
        done[k] = await runRule(stretch[k], env);
        onDone?.(done[k]);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, stretch.length) }, worker));
    results.push(...done.filter(Boolean));
    i = end;
  }
  return results;
}

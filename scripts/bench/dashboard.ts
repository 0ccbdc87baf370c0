/**
 * Part 10: what the dashboard (/__mock/ui, issue 26) costs the mock while it is open. The page reads
 * GET /__mock/events, server-sent events with one `request` event per journaled request, written at most
 * every 50 ms per reader (core/events.ts); a reader that does not keep up loses its oldest unsent events
 * (1000 kept) and is told how many in a `dropped` event. The issue's goal: with the dashboard open at
 * 5,000 requests per second, the mock's throughput drops by at most 10 %. Three measures, none asserted
 * on time, of the mock as `npm start` runs it (targets.ts) in a child process, on part 1's first request:
 *   (1) the most requests per second (part 1's measureLoad) with nobody watching, with one reader taking
 *       the stream at full speed (Node's fetch, in a child process of its own), and with the dashboard
 *       page open in headless Chromium (playwright-core, when findChromium finds one); rounds take the
 *       three in turn, the figures are their medians;
 *   (2) at a fixed rate (load.ts's atFixedRate): 5,000/s, or less when this machine cannot offer that
 *       with the page open (the section says so): the mock's CPU time per request from /proc with each
 *       viewer, so the cost the mock itself pays, and the viewer's own CPU time;
 *   (3) a slow page: a reader that pauses its stream while N requests go through a fresh mock: the mock's
 *       RSS before, at its peak and after, and after the reader resumes; the events it then got and those
 *       the mock dropped for it (its `dropped` events). The same N through a fresh mock nobody watches,
 *       for the growth that is not the stream's.
 *
 * Also the reader's entry: `node --import tsx scripts/bench/dashboard.ts reader` (IPC: open, pause,
 * resume, counts).
 */
import { fork } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import { fileURLToPath } from "node:url";
import type { Browser } from "playwright-core";
import { CHROMIUM_SEARCH, findChromium } from "../ensure-tools.mjs";
import { ask, cpuMsOf, root, rssOf, TSX_EXEC_ARGV, watchRss, type Child } from "./children.js";
import { formatCell } from "./compare.js";
import { median } from "./exercised.js";
import {
  atFixedRate,
  measureLoad,
  type BenchRequest,
  type LoadOptions,
  type LoadResult,
  type RateResult,
} from "./load.js";
import { MOCK_API_KEY, startMockTarget } from "./targets.js";
import { f0, f2, table } from "./markdown.js";

export interface DashboardPlan {
  /** Rounds of (1) and of (2), the viewers in turn in each; the figures are their medians. */
  rounds: number;
  /** (2): requests per second asked for over `rateConnections`, each run `rateSec` long after the load's warm-up. */
  rate: number;
  rateConnections: number;
  rateSec: number;
  /** (3): requests through a fresh mock before the reader opens (not watched), then while it is paused. */
  slowWarmup: number;
  slowRequests: number;
}

/** Who reads the event stream while the mock is measured. */
export const DASHBOARD_VIEWERS = [
  { id: "none", label: "nobody watching" },
  { id: "reader", label: "one reader at full speed (fetch)" },
  { id: "page", label: "the dashboard in headless Chromium" },
] as const;
export type ViewerId = (typeof DASHBOARD_VIEWERS)[number]["id"];

/** The issue's goal: the mock's throughput drops by at most this share with the dashboard open. */
export const DASHBOARD_GOAL = 0.1;
/** When `rate` is more than the slowest row of (1) can carry, (2) runs at this share of that row's most requests per second. */
export const RATE_SHARE = 0.8;
/** The page the dashboard opens on: the Requests view. */
export const DASHBOARD_PAGE = "/__mock/ui#/requests";

export const DASHBOARD_REQUEST: BenchRequest = {
  method: "GET",
  path: "/v1/calls?page=0&size=10",
  headers: { "X-API-Key": MOCK_API_KEY },
  expect: 200,
};

/**
 * What a reader got: `request` events (but its own stream's), the events the mock dropped for it, in how
 * many `dropped` events, and bytes.
 */
export interface EventCounts {
  events: number;
  dropped: number;
  droppedEvents: number;
  bytes: number;
}

/**
 * What a viewer did over a run: the reader's events; the page's requests to the mock by method and path
 * (a `dropped` event makes it load its lists again; a stream that fails is opened again).
 */
export interface ViewerActivity {
  events?: EventCounts;
  requests?: Record<string, number>;
}

export interface MaxRun extends LoadResult {
  activity: ViewerActivity;
}

export interface FixedRun extends RateResult {
  /** CPU µs per request answered: the mock's, and the viewer's processes' (the reader's child, Chromium's). */
  mockCpuUs: number;
  viewerCpuUs: number;
  activity: ViewerActivity;
}

export interface ViewerRow {
  viewer: ViewerId;
  /** (1), per round. */
  max: MaxRun[];
  /** (2), per round. */
  atRate: FixedRun[];
}

export interface SlowRow {
  reader: "none" | "paused";
  /** The requests sent while the reader was paused (or nobody watched). */
  load: LoadResult;
  /** The mock's RSS in bytes: before the requests, the highest during them, after them, after the reader resumed. */
  before: number;
  peak: number;
  after: number;
  resumed?: number;
  /** What the reader got once resumed (only the paused reader's row). */
  events?: EventCounts;
}

export interface DashboardFigures {
  command: string;
  date: string;
  durationSec: number;
  loadBefore: number[];
  loadAfter: number[];
  load: LoadOptions;
  plan: DashboardPlan;
  /** The cores this machine has: autocannon, the mock and the viewer share them. */
  cores: number;
  /** The Chromium the page row ran in; null when none was found (no page row then). */
  chromium: string | null;
  /** (2)'s rate: plan.rate, or RATE_SHARE of the slowest row's most requests per second in (1) when that is less. */
  rate: number;
  rows: ViewerRow[];
  slow: SlowRow[];
}

const noCounts = (): EventCounts => ({ events: 0, dropped: 0, droppedEvents: 0, bytes: 0 });

/** What a viewer did between two looks at it. */
function since(before: ViewerActivity, after: ViewerActivity): ViewerActivity {
  const { events, requests } = after;
  const was = before.events ?? noCounts();
  const more = Object.entries(requests ?? {}).map(([key, n]): [string, number] => [
    key,
    n - (before.requests?.[key] ?? 0),
  ]);
  return {
    ...(events && {
      events: {
        events: events.events - was.events,
        dropped: events.dropped - was.dropped,
        droppedEvents: events.droppedEvents - was.droppedEvents,
        bytes: events.bytes - was.bytes,
      },
    }),
    ...(requests && { requests: Object.fromEntries(more.filter(([, n]) => n > 0)) }),
  };
}

type ReaderCommand =
  | { op: "open"; url: string }
  | { op: "pause" }
  | { op: "resume"; quietMs: number }
  | { op: "counts" };

/** The reader child: one stream read with fetch, counting what it gets, paused and resumed on request. */
function readerChild(): void {
  const counts = noCounts();
  const decoder = new TextDecoder();
  let text = "";
  let stream: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let paused = false;
  let wake: () => void = () => {};
  let lastChunkAt = 0;
  const count = (block: string) => {
    const type = /^event: (.*)$/m.exec(block)?.[1];
    // Not counted: the stream's own GET /__mock/events, journaled (and announced) once it answered.
    if (type === "request" && !block.includes('"operationId":"streamEvents"')) counts.events++;
    if (type === "dropped") {
      counts.droppedEvents++;
      counts.dropped += (JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? "{}") as { count?: number }).count ?? 0;
    }
  };
  const pump = async (opened: () => void) => {
    for (;;) {
      if (paused) await new Promise<void>((resolve) => (wake = resolve));
      const { done, value } = await stream!.read();
      if (done) return;
      lastChunkAt = performance.now();
      counts.bytes += value.byteLength;
      text += decoder.decode(value, { stream: true });
      const blocks = text.split("\n\n");
      text = blocks.pop() ?? "";
      for (const block of blocks) count(block);
      opened();
    }
  };
  const answer = async (command: ReaderCommand): Promise<unknown> => {
    switch (command.op) {
      case "open": {
        const res = await fetch(`${command.url}/__mock/events`, { headers: { Accept: "text/event-stream" } });
        if (res.status !== 200 || !res.body) throw new Error(`GET /__mock/events answered ${res.status}`);
        stream = res.body.getReader();
        // Answered once the first chunk (the stream's opening comment) is in: the mock has subscribed.
        await new Promise<void>((resolve, reject) => void pump(resolve).catch(reject));
        return counts;
      }
      case "pause":
        paused = true;
        return counts;
      case "resume": {
        const resumedAt = performance.now();
        paused = false;
        wake();
        // Done when no chunk came for quietMs (the mock writes every 50 ms while it has events).
        while (performance.now() - Math.max(lastChunkAt, resumedAt) < command.quietMs)
          await new Promise((resolve) => setTimeout(resolve, 20));
        return counts;
      }
      case "counts":
        return counts;
    }
  };
  process.on("message", (command: ReaderCommand) =>
    answer(command).then(
      (result) => process.send!(result),
      (error: Error) => process.send!({ error: error.stack ?? String(error) }),
    ),
  );
}

interface Reader {
  pid: number;
  counts(): Promise<EventCounts>;
  pause(): Promise<EventCounts>;
  /** Resumes; answers once the stream has been quiet for `quietMs`. */
  resume(quietMs: number): Promise<EventCounts>;
  stop(): Promise<void>;
}

/** A reader of the mock's event stream in a child process of its own, so that it shares no thread with autocannon. */
async function startReader(url: string): Promise<Reader> {
  const child = fork(fileURLToPath(import.meta.url), ["reader"], {
    cwd: root,
    execArgv: TSX_EXEC_ARGV,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill();
    await exited;
  };
  try {
    await ask<EventCounts>(child, { op: "open", url }, 30_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    pid: child.pid!,
    counts: () => ask<EventCounts>(child, { op: "counts" }),
    pause: () => ask<EventCounts>(child, { op: "pause" }),
    resume: (quietMs) => ask<EventCounts>(child, { op: "resume", quietMs }),
    stop,
  };
}

/** Chromium, when findChromium finds one; launched as the browser tests launch it. */
async function launchBrowser(): Promise<Browser | undefined> {
  if (!findChromium()) return undefined;
  // Imported only now: without a Chromium that module warns that browser tests are skipped.
  const { launchChromium } = await import("../../mock-server/test/chromium.js");
  return launchChromium();
}

/**
 * The dashboard in a fresh browser context, on the Requests view; resolved once its event stream answered
 * and the view loaded its list from the journal (which it does once live). Counts the page's requests to
 * the mock, by method and path.
 */
async function openDashboard(
  browser: Browser,
  url: string,
): Promise<{ requests(): Record<string, number>; close(): Promise<void> }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const requests: Record<string, number> = {};
  try {
    const page = await context.newPage();
    page.on("request", (request) => {
      const key = `${request.method()} ${new URL(request.url()).pathname}`;
      requests[key] = (requests[key] ?? 0) + 1;
    });
    const answered = (path: string) =>
      page.waitForResponse((res) => new URL(res.url()).pathname === path, { timeout: 30_000 });
    const stream = answered("/__mock/events");
    const list = answered("/__mock/requests");
    await page.goto(url + DASHBOARD_PAGE);
    for (const res of [await stream, await list])
      if (res.status() !== 200) throw new Error(`the dashboard's ${res.url()} answered ${res.status()}`);
  } catch (error) {
    await context.close();
    throw error;
  }
  return { requests: () => ({ ...requests }), close: () => context.close() };
}

/** The processes under `ancestor` (from /proc): Chromium's browser, renderer, GPU and utility processes. */
function descendantsOf(ancestor: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(name)]);
    } catch {
      /* gone meanwhile */
    }
  }
  const found: number[] = [];
  for (let queue = [ancestor]; queue.length > 0; ) {
    const next = children.get(queue.pop()!) ?? [];
    found.push(...next);
    queue.push(...next);
  }
  return found;
}

interface Viewer {
  /** The processes whose CPU time is the viewer's. */
  pids(): number[];
  /** What it did so far. */
  activity(): Promise<ViewerActivity>;
  close(): Promise<void>;
}

async function openViewer(id: ViewerId, mock: Child, browser: Browser | undefined): Promise<Viewer> {
  if (id === "reader") {
    const reader = await startReader(mock.url);
    return { pids: () => [reader.pid], activity: async () => ({ events: await reader.counts() }), close: reader.stop };
  }
  if (id === "page") {
    const page = await openDashboard(browser!, mock.url);
    // Every process of the bench's but the mock is Chromium's now (the reader is closed).
    return {
      pids: () => descendantsOf(process.pid).filter((pid) => pid !== mock.process.pid),
      activity: async () => ({ requests: page.requests() }),
      close: page.close,
    };
  }
  return { pids: () => [], activity: async () => ({}), close: async () => {} };
}

async function watched<T>(
  id: ViewerId,
  mock: Child,
  browser: Browser | undefined,
  work: (viewer: Viewer) => Promise<T>,
): Promise<T> {
  const viewer = await openViewer(id, mock, browser);
  try {
    return await work(viewer);
  } finally {
    await viewer.close();
  }
}

const cpuOf = (pids: number[]) => pids.reduce((sum, pid) => sum + (cpuMsOf(pid) ?? 0), 0);

/** (2): one run at `rate`, after the load's warm-up at the same rate; CPU of the mock and of the viewer over it. */
async function fixedRun(
  mock: Child,
  viewer: Viewer,
  load: LoadOptions,
  plan: DashboardPlan,
  rate: number,
): Promise<FixedRun> {
  const pace = { rate, connections: plan.rateConnections };
  if (load.warmupSec > 0)
    await atFixedRate(mock.url, DASHBOARD_REQUEST, load, { ...pace, durationSec: load.warmupSec });
  const pids = viewer.pids();
  const mockBefore = cpuMsOf(mock.process.pid) ?? Number.NaN;
  const viewerBefore = cpuOf(pids);
  const activity = await viewer.activity();
  const run = await atFixedRate(mock.url, DASHBOARD_REQUEST, load, { ...pace, durationSec: plan.rateSec });
  const perRequest = (ms: number) => (run.requests > 0 ? (ms * 1000) / run.requests : Number.NaN);
  return {
    ...run,
    mockCpuUs: perRequest((cpuMsOf(mock.process.pid) ?? Number.NaN) - mockBefore),
    viewerCpuUs: perRequest(cpuOf(pids) - viewerBefore),
    activity: since(activity, await viewer.activity()),
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 200));

/** (3) through a fresh mock: `slowWarmup` requests nobody watches, then `slowRequests` with the reader paused (or none). */
async function slowRun(kind: SlowRow["reader"], load: LoadOptions, plan: DashboardPlan, kit: string): Promise<SlowRow> {
  const mock = await startMockTarget({ name: `mock (dashboard, slow page: ${kind})`, root: kit });
  let reader: Reader | undefined;
  try {
    const pid = mock.process.pid;
    const batch = (amount: number) =>
      measureLoad(mock.url, DASHBOARD_REQUEST, {
        connections: load.connections,
        durationSec: 0,
        warmupSec: 0,
        amount,
        sampleMs: load.sampleMs,
      });
    await batch(plan.slowWarmup);
    if (kind === "paused") {
      reader = await startReader(mock.url);
      await reader.pause();
    }
    await settle();
    const before = rssOf(pid) ?? Number.NaN;
    const peak = watchRss(pid, 10);
    const sent = await batch(plan.slowRequests);
    await settle();
    const highest = peak.stop() ?? Number.NaN;
    const after = rssOf(pid) ?? Number.NaN;
    if (!reader) return { reader: kind, load: sent, before, peak: highest, after };
    const events = await reader.resume(500);
    await settle();
    return { reader: kind, load: sent, before, peak: highest, after, resumed: rssOf(pid) ?? Number.NaN, events };
  } finally {
    await reader?.stop();
    await mock.stop();
  }
}

const pct = (share: number) => (Number.isFinite(share) ? `${(share * 100).toFixed(1)} %` : "n/a");
/** A change as a signed percentage: below zero is noise in the other direction (a drop that is a gain). */
const signed = (share: number) => (Number.isFinite(share) ? `${share < 0 ? "−" : "+"}${pct(Math.abs(share))}` : "n/a");
const mib = (bytes: number | undefined) =>
  bytes !== undefined && Number.isFinite(bytes) ? `${(bytes / 2 ** 20).toFixed(1)} MiB` : "n/a";

/** The reader's events, the page's requests besides its stream, or nothing for nobody watching. */
export function formatActivity({ events, requests }: ViewerActivity): string {
  if (events) return `${events.events} events (${events.dropped} dropped)`;
  if (!requests) return "-";
  const made = Object.entries(requests).map(([request, n]) => `${request} ×${n}`);
  return made.length ? made.join(", ") : "no request";
}
/** A row's runs in one cell: the reader's events a run (range) and drops (sum); the page's requests (sums). */
function activityOver(runs: { activity: ViewerActivity }[]): string {
  const events = runs.flatMap(({ activity }) => (activity.events ? [activity.events] : []));
  if (events.length) {
    const got = events.map((e) => e.events);
    const dropped = events.reduce((sum, e) => sum + e.dropped, 0);
    return `${Math.min(...got)}–${Math.max(...got)} events a run, ${dropped} dropped`;
  }
  const made: Record<string, number> = {};
  for (const { activity } of runs)
    for (const [request, n] of Object.entries(activity.requests ?? {})) made[request] = (made[request] ?? 0) + n;
  const sums = Object.entries(made).map(([request, n]) => `${request} ×${n}`);
  return sums.length ? sums.join(", ") : "none besides its stream";
}
const labelOf = (id: ViewerId) => DASHBOARD_VIEWERS.find((v) => v.id === id)!.label;

/** A viewer row's medians over its rounds, and its costs against the row of nobody watching. */
export function viewerMedians(row: ViewerRow, none: ViewerRow | undefined) {
  const rps = median(row.max.map((m) => m.rps));
  const mockCpuUs = median(row.atRate.map((r) => r.mockCpuUs));
  const baseRps = none ? median(none.max.map((m) => m.rps)) : Number.NaN;
  const baseCpuUs = none ? median(none.atRate.map((r) => r.mockCpuUs)) : Number.NaN;
  const cpuCost = mockCpuUs / baseCpuUs - 1;
  return {
    rps,
    maxCpuUs: median(row.max.map((m) => m.cpuUs ?? Number.NaN)),
    /** (1): the drop in the most requests per second. */
    drop: 1 - rps / baseRps,
    achieved: median(row.atRate.map((r) => r.rate)),
    p50: median(row.atRate.map((r) => r.p50)),
    p99: median(row.atRate.map((r) => r.p99)),
    mockCpuUs,
    viewerCpuUs: median(row.atRate.map((r) => r.viewerCpuUs)),
    /** (2): the mock's extra CPU per request, and the drop it makes in a mock bound by its own CPU. */
    cpuCost,
    cpuDrop: 1 - 1 / (1 + cpuCost),
    errors: [...row.max, ...row.atRate].reduce((sum, r) => sum + r.errors, 0),
  };
}

export async function measureDashboard(
  command: string,
  load: LoadOptions,
  plan: DashboardPlan,
  log: (line: string) => void,
  /** The kit whose mock is measured: this checkout, or REV's worktree under --against (against.ts). */
  kit: string = root,
): Promise<DashboardFigures> {
  const started = performance.now();
  const loadBefore = os.loadavg();
  const browser = await launchBrowser();
  if (!browser) log(`  no Chromium (looked at ${CHROMIUM_SEARCH}): no page row`);
  try {
    const rows: ViewerRow[] = DASHBOARD_VIEWERS.filter((v) => v.id !== "page" || browser).map((v) => ({
      viewer: v.id,
      max: [],
      atRate: [],
    }));
    const mock = await startMockTarget({ name: "mock (dashboard)", root: kit });
    let rate = plan.rate;
    try {
      for (let round = 0; round < plan.rounds; round++)
        for (const row of rows)
          await watched(row.viewer, mock, browser, async (viewer) => {
            // What the viewer did over the measured run, not the warm-up.
            let before: ViewerActivity = {};
            let activity: ViewerActivity = {};
            const meter = {
              start: async () => void (before = await viewer.activity()),
              stop: async () => void (activity = since(before, await viewer.activity())),
            };
            const max = await measureLoad(mock.url, DASHBOARD_REQUEST, load, mock.process.pid, [meter]);
            row.max.push({ ...max, activity });
            log(`  most req/s, ${labelOf(row.viewer).padEnd(36)} ${formatCell(max)}; ${formatActivity(activity)}`);
          });
      const slowest = Math.min(...rows.map((row) => median(row.max.map((m) => m.rps))));
      if (plan.rate > slowest * RATE_SHARE) {
        rate = Math.max(100, Math.floor((slowest * RATE_SHARE) / 100) * 100);
        log(`  ${plan.rate}/s is more than this machine offers (at most ${f0(slowest)} req/s): ${rate}/s instead`);
      }
      for (let round = 0; round < plan.rounds; round++)
        for (const row of rows)
          await watched(row.viewer, mock, browser, async (viewer) => {
            const run = await fixedRun(mock, viewer, load, plan, rate);
            row.atRate.push(run);
            log(
              `  at ${rate}/s, ${labelOf(row.viewer).padEnd(36)} ${f0(run.rate)} req/s  mock ${f2(run.mockCpuUs)} µs CPU/req  viewer ${f2(run.viewerCpuUs)} µs CPU/req  p50 ${f2(run.p50)} ms  p99 ${f2(run.p99)} ms  errors ${run.errors}; ${formatActivity(run.activity)}`,
            );
          });
    } finally {
      await mock.stop();
    }
    const none = rows.find((row) => row.viewer === "none");
    for (const row of rows.filter((r) => r !== none)) {
      const m = viewerMedians(row, none);
      log(
        `  ${labelOf(row.viewer).padEnd(36)} most req/s ${f0(m.rps)} (drop ${signed(m.drop)}); at ${rate}/s mock CPU per request ${signed(m.cpuCost)} (drop of a CPU-bound mock ${signed(m.cpuDrop)}); goal: drop at most ${pct(DASHBOARD_GOAL)}`,
      );
    }

    const slow: SlowRow[] = [];
    for (const kind of ["none", "paused"] as const) {
      const row = await slowRun(kind, load, plan, kit);
      slow.push(row);
      const got = row.events
        ? `; resumed: RSS ${mib(row.resumed)}, got ${row.events.events} events, ${row.events.dropped} dropped (in ${row.events.droppedEvents} dropped events)`
        : "";
      log(
        `  ${plan.slowRequests} requests, reader ${kind.padEnd(6)} RSS ${mib(row.before)} -> peak ${mib(row.peak)}, after ${mib(row.after)}${got}; errors ${row.load.errors}`,
      );
    }
    return {
      command,
      date: new Date().toISOString(),
      durationSec: (performance.now() - started) / 1000,
      loadBefore,
      loadAfter: os.loadavg(),
      load,
      plan,
      cores: os.cpus().length,
      chromium: browser ? (findChromium() ?? null) : null,
      rate,
      rows,
      slow,
    };
  } finally {
    await browser?.close();
  }
}

const goal = (drop: number) => (Number.isFinite(drop) ? (drop <= DASHBOARD_GOAL ? "met" : "**missed**") : "n/a");

/** The section's first words: each viewer's two drops against the goal, and the slow page's memory. */
function inShort(d: DashboardFigures): string {
  const none = d.rows.find((row) => row.viewer === "none");
  const viewers = d.rows
    .filter((row) => row !== none)
    .map((row) => {
      const m = viewerMedians(row, none);
      const own =
        row.viewer === "page"
          ? ` (Chromium spending ${f0(m.viewerCpuUs)} µs of CPU per request on the same cores)`
          : "";
      return `with ${labelOf(row.viewer)}, most requests per second ${signed(-m.drop)}${own}, and at ${d.rate}/s the mock's CPU per request ${signed(m.cpuCost)}: a mock bound by its own CPU would answer ${signed(-m.cpuDrop)} (goal: at most ${pct(DASHBOARD_GOAL)} fewer)`;
    });
  const [quiet, paused] = [d.slow.find((row) => row.reader === "none"), d.slow.find((row) => row.reader === "paused")];
  const slow =
    quiet && paused?.events
      ? ` A paused reader: the mock's peak RSS +${mib(paused.peak - paused.before)} over the ${d.plan.slowRequests} requests, against +${mib(quiet.peak - quiet.before)} with nobody watching; it dropped ${paused.events.dropped} events for the reader and sent it ${paused.events.events} once it read again.`
      : "";
  return `**In short** (medians): ${viewers.join("; ")}.${slow}`;
}

/** The section of RESULTS.md; empty when no run measured this part. */
export function renderDashboard(d: DashboardFigures | undefined): string {
  if (!d) return "";
  const { plan } = d;
  const none = d.rows.find((row) => row.viewer === "none");
  const measured = d.load.amount
    ? `${d.load.amount} requests`
    : `${d.load.warmupSec} s warm-up then ${d.load.durationSec} s measured`;
  const rateText = d.load.amount ? `${d.load.amount} requests` : `${plan.rateSec} s`;
  const most = table(
    [
      "viewer",
      "most req/s (min–max)",
      "drop against nobody watching",
      "mock CPU µs per request",
      "the reader's events; the page's requests",
      "errors",
    ],
    d.rows.map((row) => {
      const m = viewerMedians(row, none);
      const rps = row.max.map((r) => r.rps);
      return [
        labelOf(row.viewer),
        `${f0(m.rps)} (${f0(Math.min(...rps))}–${f0(Math.max(...rps))})`,
        row === none ? "-" : `${signed(m.drop)} (goal ${goal(m.drop)})`,
        f0(m.maxCpuUs),
        row === none ? "-" : activityOver(row.max),
        String(row.max.reduce((sum, r) => sum + r.errors, 0)),
      ];
    }),
  );
  const fixed = table(
    [
      "viewer",
      "req/s reached",
      "mock CPU µs per request (min–max)",
      "against nobody watching",
      "a CPU-bound mock's throughput",
      "viewer's CPU µs per request",
      "p50 / p99 ms",
      "the reader's events; the page's requests",
      "errors",
    ],
    d.rows.map((row) => {
      const m = viewerMedians(row, none);
      return [
        labelOf(row.viewer),
        f0(m.achieved),
        `${f0(m.mockCpuUs)} (${f0(Math.min(...row.atRate.map((r) => r.mockCpuUs)))}–${f0(Math.max(...row.atRate.map((r) => r.mockCpuUs)))})`,
        row === none ? "-" : signed(m.cpuCost),
        row === none ? "-" : `drop ${signed(m.cpuDrop)} (goal ${goal(m.cpuDrop)})`,
        row === none ? "-" : f0(m.viewerCpuUs),
        `${f2(m.p50)} / ${f2(m.p99)}`,
        row === none ? "-" : activityOver(row.atRate),
        String(row.atRate.reduce((sum, r) => sum + r.errors, 0)),
      ];
    }),
  );
  const slow = table(
    [
      "reader",
      "RSS before",
      "peak",
      "after",
      "after it resumed",
      "events it got",
      "events dropped (in `dropped` events)",
      "errors",
    ],
    d.slow.map((row) => [
      row.reader === "none" ? "none (nobody watching)" : "paused, then resumed",
      mib(row.before),
      `${mib(row.peak)} (+${mib(row.peak - row.before)})`,
      `${mib(row.after)} (+${mib(row.after - row.before)})`,
      row.resumed === undefined ? "-" : mib(row.resumed),
      row.events ? String(row.events.events) : "-",
      row.events ? `${row.events.dropped} (${row.events.droppedEvents})` : "-",
      String(row.load.errors),
    ]),
  );
  const noneRate = none ? median(none.atRate.map((r) => r.rate)) : Number.NaN;
  const page = d.rows.find((row) => row.viewer === "page");
  const slowest = Math.min(...d.rows.map((row) => median(row.max.map((m) => m.rps))));
  const rateNote =
    d.rate < plan.rate
      ? `**This machine cannot offer ${plan.rate} requests per second to ${d.rows.length === 3 ? "all three" : "both"} rows**: the slowest row of (1) answered at most ${f0(slowest)} per
second (autocannon, the mock${page ? " and Chromium" : " and the reader"} share ${d.cores} cores), so (2) runs at ${d.rate} per second (${pct(RATE_SHARE)} of that, rounded down) instead, the same
rate for every row.`
      : `(2) runs at the ${plan.rate} requests per second the goal names${Number.isFinite(noneRate) && noneRate < 0.95 * d.rate ? `, **though autocannon reached only ${f0(noneRate)} per second with nobody watching**` : ""}.`;
  return `## 10. The dashboard's cost: the mock with its event stream read

Generated by \`${d.command}\` on ${d.date} in ${f0(d.durationSec)} s; load average before / after: ${d.loadBefore.map((n) => n.toFixed(2)).join(", ")} / ${d.loadAfter.map((n) => n.toFixed(2)).join(", ")}.
\`scripts/bench/dashboard.ts\`. The dashboard (\`${DASHBOARD_PAGE}\`) reads \`GET /__mock/events\`: one \`request\` event per journaled request,
written at most every 50 ms per reader; a reader that does not keep up loses its oldest unsent events (1000 kept) and is
told how many in a \`dropped\` event. The goal (issue 26): with the dashboard open at 5,000 requests per second, the mock's
throughput drops by at most ${pct(DASHBOARD_GOAL)}; nothing here asserts it. The mock as \`npm start\` runs it (\`node dist/mock-server/main.js\`,
\`NODE_ENV\` unset, \`--log-format off\`) in a child process, answering \`${DASHBOARD_REQUEST.method} ${DASHBOARD_REQUEST.path}\` (part 1's first row). Viewers: nobody;
one reader taking the stream as fast as it comes (Node's \`fetch\`, counting events, in a child process of its own); ${
    d.chromium
      ? `the dashboard page in headless Chromium (\`${d.chromium}\`, playwright-core, 1280×800, a fresh context each time), open on the Requests view and
measured once its event stream answered and its list of requests loaded`
      : "**no Chromium was found, so no page row** (install Debian's `chromium` or set `CHROMIUM_PATH`)"
  }. ${plan.rounds} round${plan.rounds === 1 ? "" : "s"}, the viewers in turn in each; medians of the rounds.
Rerun this part alone with \`npm run bench -- --only dashboard\` (the other parts' figures are kept from \`scripts/bench/results.json\`).

${inShort(d)}

### (1) Most requests per second

As part 1: ${d.load.connections} connections, ${measured}, the mock's CPU time per request from /proc. On this machine autocannon, the
mock and the viewer share the cores, so the drop counts the viewer's CPU as much as the mock's; (2) separates them. A drop
below zero (more requests than with nobody watching) is the machine's noise, as large as the range of the first row.

${most}

### (2) At a fixed rate: the mock's CPU per request

${rateNote} ${plan.rateConnections} connections (autocannon's \`overallRate\`), ${rateText} after a warm-up at the same rate;
the CPU time the mock's process, and the viewer's processes (the reader's child; every Chromium process), spent over the run, per
request answered. A mock bound by its own CPU answers 1 / (1 + extra) of its requests per second when each request costs that
much more: the throughput column, what the stream takes from the mock on a machine where the viewer has a core of its own.

${fixed}

### (3) A slow page: a reader that stops reading

A fresh mock for each row, ${plan.slowWarmup} requests nobody watches first; then a reader opens the stream and pauses it (stops
reading; the kernel's socket buffers fill, the mock stops writing to it and its queue keeps the newest 1000 events), and
${plan.slowRequests} requests go through (${d.load.connections} connections); RSS from /proc, its peak sampled every 10 ms. Then the reader reads
again until the stream is quiet for 500 ms: the events it got (those the socket buffers held, then the newest kept) and
those the mock dropped for it, as its \`dropped\` events told it. The row without a reader is the growth a mock has anyway.

${slow}
`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1] && process.argv[2] === "reader")
  readerChild();

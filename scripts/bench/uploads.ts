/**
 * Part 5: E9 uploads against the mock in its own process (NODE_ENV=production, as in earlier runs). A 25 MB text file (the largest allowed):
 * throughput in MB/s from the first byte sent to the 201. A 100 MB file: answered 413, and the
 * mock's resident memory, sampled from /proc every 10 ms, grows by how much over its baseline.
 * The file is streamed from one reused 1 MB chunk, so the client holds no 100 MB buffer either.
 */
import http from "node:http";
import { watchRss, rssOf } from "./children.js";
import { MB, multipartFrame, textFile } from "./scenarios.js";
import { MOCK_API_KEY, startMockTarget } from "./targets.js";

export interface UploadFigures {
  /** 25 MB uploads: MB/s each, and their statuses. */
  throughputMBps: number[];
  statuses25: number[];
  oversizeMB: number;
  oversizeStatus: number;
  /** Milliseconds from the first byte to the 413 (the mock answers before the body ends). */
  oversizeAnswerMs: number;
  baselineRss: number;
  peakRss: number;
}

/** Resolves once the answer has arrived and the whole body has been sent (or the server closed). */
export function upload(url: string, fileBytes: number): Promise<{ status: number; ms: number }> {
  const frame = multipartFrame({ name: "Bench upload" }, "upload.txt");
  const chunk = textFile(Math.min(MB, fileBytes));
  const req = http.request(`${url}/v1/knowledge-bases`, {
    method: "POST",
    agent: false,
    headers: {
      "X-API-Key": MOCK_API_KEY,
      "Content-Type": frame.contentType,
      "Content-Length": frame.head.length + fileBytes + frame.tail.length,
    },
  });
  const started = performance.now();
  const answer = new Promise<{ status: number; ms: number }>((resolve, reject) => {
    req.on("response", (res) => {
      const answered = { status: res.statusCode ?? 0, ms: performance.now() - started };
      res.resume();
      res.on("end", () => resolve(answered));
    });
    req.on("error", reject);
  });
  const closed = new Promise<void>((ok) => req.once("close", () => ok()));
  const write = (b: Buffer) =>
    req.write(b) ? Promise.resolve() : Promise.race([new Promise<void>((ok) => req.once("drain", () => ok())), closed]);
  const sent = (async () => {
    await write(frame.head);
    for (let n = 0; n < fileBytes && !req.destroyed; n += chunk.length)
      await write(n + chunk.length <= fileBytes ? chunk : chunk.subarray(0, fileBytes - n));
    if (!req.destroyed) await Promise.race([new Promise<void>((ok) => req.end(frame.tail, () => ok())), closed]);
  })();
  // After an early answer the server may close while we still send: the answer is what counts.
  return Promise.all([answer, sent.catch(() => undefined)]).then(([a]) => a);
}

/** `kit`: the kit whose mock is measured (this checkout by default; REV's worktree under --against). */
export async function measureUploads(samples: number, kit?: string): Promise<UploadFigures> {
  const mock = await startMockTarget({ config: "production", root: kit });
  try {
    await upload(mock.url, MB);
    const throughputMBps: number[] = [];
    const statuses25: number[] = [];
    for (let i = 0; i < samples; i++) {
      const r = await upload(mock.url, 25 * MB);
      statuses25.push(r.status);
      throughputMBps.push(25 / (r.ms / 1000));
    }
    return { throughputMBps, statuses25, ...(await oversize(kit)) };
  } finally {
    await mock.stop();
  }
}

/** In a fresh process, so the baseline is not inflated by the 25 MB uploads' garbage. */
async function oversize(
  kit?: string,
): Promise<Pick<UploadFigures, "oversizeMB" | "oversizeStatus" | "oversizeAnswerMs" | "baselineRss" | "peakRss">> {
  const mock = await startMockTarget({ config: "production", root: kit });
  try {
    await upload(mock.url, MB);
    const pid = mock.process.pid;
    const baselineRss = rssOf(pid) ?? 0;
    const watch = watchRss(pid, 10);
    const r = await upload(mock.url, 100 * MB);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const peakRss = watch.stop() ?? 0;
    return { oversizeMB: 100, oversizeStatus: r.status, oversizeAnswerMs: r.ms, baselineRss, peakRss };
  } finally {
    await mock.stop();
  }
}

/**
 * E9 with several files, in several orders and sizes, sent with a Content-Length (as curl and fetch
 * send a form) and streamed (chunked), through the standalone server and through the MSW door: each
 * file is judged on its own (a file over 1 MB after another file is a file, not an oversized form
 * field), every limit still holds wherever the offending part sits (25 MB + 1 byte → 413, a disallowed
 * type → 415, a text field over 1 MB → 400), and a refused upload creates nothing. Names of 512
 * non-ASCII characters (counted in code points) pass whole through either door's form reader.
 *
 * Regression: the node:http door's reader tracked one open file with a single flag, cleared when the
 * previous file's stream closed, which happens a tick after busboy opened the next file when both
 * part boundaries came in one chunk of the body (always so with a Content-Length). The second file's
 * bytes were then counted as a form field's, and past 1 MB + slack answered 400 "A form field exceeds".
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
// The module object, not a named import: MSW (setupServer) patches http.request on it at listen().
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_FIELD_BYTES, MAX_FILE_BYTES } from "../../core/uploads.js";
import { startMock } from "../../server.js";
import { expectErrorBody } from "../harness.js";
import { type UploadDoor, uploadDoors } from "./upload-doors.js";

const KB = 1024;
const MB = 1024 * 1024;
const PATH = "/v1/knowledge-bases";
const BOUNDARY = "----kit-multipart-uploads-7f3a";

type Part = { field: string; value: string } | { file: string; bytes: Buffer; type?: string };

const text = (filename: string, size: number, fill = "a"): Part => ({
  file: filename,
  bytes: Buffer.alloc(size, fill),
  type: "text/plain",
});
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]);

/** The body as pieces (headers and each file's bytes apart), so a streamed send can write them one by one. */
function multipart(parts: Part[]): Buffer[] {
  const pieces: Buffer[] = [];
  for (const part of parts) {
    if ("field" in part) {
      pieces.push(
        Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${part.field}"\r\n\r\n${part.value}\r\n`),
      );
    } else {
      pieces.push(
        Buffer.from(
          `--${BOUNDARY}\r\nContent-Disposition: form-data; name="knowledge_base_files"; filename="${part.file}"\r\nContent-Type: ${part.type ?? "application/octet-stream"}\r\n\r\n`,
        ),
      );
      pieces.push(part.bytes, Buffer.from("\r\n"));
    }
  }
  pieces.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return pieces;
}

interface Answer {
  status: number;
  json: any;
}

type Mode = "content-length" | "chunked";

/**
 * node:http with an explicit Content-Length (the body's pieces written back to back, as one stream of
 * bytes) or chunked (each piece its own writes, a turn of the event loop between pieces). Writes in
 * 64 KB slices with backpressure and stops once answered (a refusal may come before the last byte).
 */
function send(base: string, apiKey: string, pieces: Buffer[], mode: Mode): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const length = pieces.reduce((n, p) => n + p.length, 0);
    const headers: Record<string, string> = {
      "X-API-Key": apiKey,
      "Content-Type": `multipart/form-data; boundary=${BOUNDARY}`,
    };
    if (mode === "content-length") headers["Content-Length"] = String(length);
    let answered = false;
    const req = http.request(base + PATH, { method: "POST", headers });
    req.on("response", (res) => {
      answered = true;
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c) => (body += c));
      res.on("end", () => {
        req.destroy();
        try {
          resolve({ status: res.statusCode!, json: JSON.parse(body) });
        } catch {
          reject(new Error(`not JSON (${res.statusCode}): ${body.slice(0, 200)}`));
        }
      });
    });
    req.on("error", (e) => !answered && reject(e));
    const slices = pieces.flatMap((piece, i) => {
      const out: (Buffer | "pause")[] = [];
      for (let at = 0; at < piece.length; at += 64 * KB) out.push(piece.subarray(at, at + 64 * KB));
      return mode === "chunked" && i < pieces.length - 1 ? [...out, "pause" as const] : out;
    });
    let next = 0;
    const pump = () => {
      while (!answered && next < slices.length) {
        const slice = slices[next++];
        if (slice === "pause") return void setImmediate(pump);
        if (!req.write(slice)) return void req.once("drain", pump);
      }
      if (!answered) req.end();
    };
    pump();
  });
}

/** fetch with the whole body as one Buffer: undici sends it with a Content-Length. */
async function sendBuffer(base: string, apiKey: string, pieces: Buffer[]): Promise<Answer> {
  const res = await fetch(base + PATH, {
    method: "POST",
    headers: { "X-API-Key": apiKey, "Content-Type": `multipart/form-data; boundary=${BOUNDARY}` },
    body: Buffer.concat(pieces),
  });
  return { status: res.status, json: await res.json() };
}

const quiet = () => undefined;
const doors = uploadDoors("uploads.test");

interface Case {
  title: string;
  parts: () => Part[];
  status: number;
  /** 201: the file sources, in the order sent. 400: the field validationErrors names. */
  files?: string[];
  field?: string;
}

const accepted: Case[] = [
  {
    title: "1 KB then 2 MB",
    parts: () => [text("small.txt", KB), text("big.txt", 2 * MB)],
    status: 201,
    files: ["small.txt", "big.txt"],
  },
  {
    title: "1 KB then 1 MB + 1 byte",
    parts: () => [text("small.txt", KB), text("over-1mb.txt", MB + 1)],
    status: 201,
    files: ["small.txt", "over-1mb.txt"],
  },
  {
    title: "small, 2 MB, small",
    parts: () => [text("a.txt", KB), text("b.md", 2 * MB, "#"), text("c.txt", 10)],
    status: 201,
    files: ["a.txt", "b.md", "c.txt"],
  },
  {
    title: "2 MB then 3 MB",
    parts: () => [text("two.txt", 2 * MB), text("three.html", 3 * MB, "p")],
    status: 201,
    files: ["two.txt", "three.html"],
  },
  {
    title: "1 KB then exactly 25 MB (the documented maximum)",
    parts: () => [text("small.txt", KB), text("largest.txt", MAX_FILE_BYTES)],
    status: 201,
    files: ["small.txt", "largest.txt"],
  },
];

const refused: Case[] = [
  {
    title: "1 KB then 25 MB + 1 byte",
    parts: () => [text("small.txt", KB), text("too-big.txt", MAX_FILE_BYTES + 1)],
    status: 413,
  },
  {
    title: "2 MB, 25 MB + 1 byte, 1 KB",
    parts: () => [text("two.txt", 2 * MB), text("too-big.txt", MAX_FILE_BYTES + 1), text("after.txt", KB)],
    status: 413,
  },
  {
    title: "1 KB, 2 MB, then a PNG",
    parts: () => [text("small.txt", KB), text("big.txt", 2 * MB), { file: "photo.png", bytes: PNG, type: "image/png" }],
    status: 415,
  },
  {
    title: "1 KB, then a .txt holding binary",
    parts: () => [text("small.txt", KB), { file: "bin.txt", bytes: Buffer.from([0, 1, 2, 0xff]), type: "text/plain" }],
    status: 415,
  },
  {
    title: "two files over 1 MB, then a text field over 1 MB",
    parts: () => [
      text("one.txt", 2 * MB),
      text("two.txt", 2 * MB),
      { field: "knowledge_base_texts", value: `["${"t".repeat(MAX_FIELD_BYTES + 10)}"]` },
    ],
    status: 400,
  },
];

const modes: Mode[] = ["content-length", "chunked"];

describe.each(doors)("E9 with several files through $name", ({ open }) => {
  let door: UploadDoor;
  beforeAll(async () => void (door = await open()));
  afterAll(async () => door?.close());

  const names = async (): Promise<string[]> => {
    const res = await fetch(`${door.base}/__mock/workspaces/default/knowledgeBases`);
    expect(res.status).toBe(200);
    return ((await res.json()) as { name: string }[]).map((kb) => kb.name);
  };
  let serial = 0;
  const form = (c: Case) => {
    const name = `kb ${++serial} ${c.title}`;
    return { name, pieces: multipart([{ field: "name", value: name }, ...c.parts()]) };
  };

  describe.each(modes)("sent %s", (mode) => {
    it.each(accepted.map((c) => [c.title, c] as const))("accepts %s: 201, every file in order", async (_title, c) => {
      const { name, pieces } = form(c);
      const res = await send(door.base, door.apiKey, pieces, mode);
      expect(res.status, JSON.stringify(res.json)).toBe(201);
      expect(res.json.name).toBe(name);
      expect(res.json.files.map((f: { type: string; content: string }) => [f.type, f.content])).toEqual(
        c.files!.map((f) => ["file", f]),
      );
      expect(await names()).toContain(name);
    });

    it.each(refused.map((c) => [c.title, c] as const))(
      "refuses %s with the 2.2 error body, creating nothing",
      async (_title, c) => {
        const { name, pieces } = form(c);
        const before = (await names()).length;
        const res = await send(door.base, door.apiKey, pieces, mode);
        expect(res.status, JSON.stringify(res.json)).toBe(c.status);
        expectErrorBody(res.json, c.status, PATH);
        if (c.status === 400) expect(res.json.validationErrors).toHaveProperty("knowledge_base_texts");
        const after = await names();
        expect(after).toHaveLength(before);
        expect(after).not.toContain(name);
      },
    );
  });

  // "At most 512 characters" (8) counts Unicode code points, as JSON Schema maxLength does: not UTF-16
  // units (😀 is two) nor UTF-8 bytes (東 is three), and with no normalisation (e + U+0301 is two).
  describe.each(modes)("names counted in code points, sent %s", (mode) => {
    it.each(["é", "東", "😀"])("accepts 512 × %s and stores it whole; refuses 513 with 400 naming name", async (ch) => {
      const before = (await names()).length;
      const longest = ch.repeat(512);
      const ok = await send(
        door.base,
        door.apiKey,
        multipart([{ field: "name", value: longest }, text("notes.txt", KB)]),
        mode,
      );
      expect(ok.status, JSON.stringify(ok.json)).toBe(201);
      expect(ok.json.name).toBe(longest);
      expect(await names()).toContain(longest);
      const over = await send(
        door.base,
        door.apiKey,
        multipart([{ field: "name", value: ch.repeat(513) }, text("notes.txt", KB)]),
        mode,
      );
      expect(over.status).toBe(400);
      expectErrorBody(over.json, 400, PATH);
      expect(over.json.validationErrors).toHaveProperty("name");
      expect(await names()).toHaveLength(before + 1);
    });

    it("counts a letter and a combining accent as two characters (no normalisation)", async () => {
      const decomposed = "e\u0301".repeat(256);
      const ok = await send(door.base, door.apiKey, multipart([{ field: "name", value: decomposed }]), mode);
      expect(ok.status, JSON.stringify(ok.json)).toBe(201);
      expect(ok.json.name).toBe(decomposed);
      const over = await send(door.base, door.apiKey, multipart([{ field: "name", value: `${decomposed}x` }]), mode);
      expect(over.status).toBe(400);
      expect(over.json.validationErrors).toHaveProperty("name");
    });
  });

  it("accepts 1 KB then 2 MB sent by fetch as one Buffer (Content-Length)", async () => {
    const { name, pieces } = form(accepted[0]);
    const res = await sendBuffer(door.base, door.apiKey, pieces);
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect(res.json.files.map((f: { content: string }) => f.content)).toEqual(["small.txt", "big.txt"]);
    expect(await names()).toContain(name);
  });
});

describe("E9 with several files sent by curl -F (Content-Length) to the standalone server", () => {
  let base = "";
  let apiKey = "";
  let close: () => Promise<void> = async () => undefined;
  const dir = mkdtempSync(join(tmpdir(), "kit-uploads-"));
  beforeAll(async () => {
    const running = await startMock({ log: quiet });
    ({ url: base, apiKey } = running);
    close = () => running.close();
    writeFileSync(join(dir, "small.txt"), Buffer.alloc(KB, "a"));
    writeFileSync(join(dir, "big.txt"), Buffer.alloc(2 * MB, "b"));
    writeFileSync(join(dir, "too-big.txt"), Buffer.alloc(MAX_FILE_BYTES + 1, "c"));
  });
  afterAll(async () => {
    await close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** curl runs in another process (execFile, not execFileSync: the server answers from this one). */
  const curl = async (name: string, files: string[]): Promise<Answer> => {
    const args = [
      "-sS",
      "-H",
      `X-API-Key: ${apiKey}`,
      "-F",
      `name=${name}`,
      ...files.flatMap((f) => ["-F", `knowledge_base_files=@${join(dir, f)};type=text/plain`]),
      "-w",
      "\n%{http_code}",
      base + PATH,
    ];
    const { stdout } = await promisify(execFile)("curl", args, { maxBuffer: 4 * MB });
    const cut = stdout.lastIndexOf("\n");
    return { status: Number(stdout.slice(cut + 1)), json: JSON.parse(stdout.slice(0, cut)) };
  };
  const names = async () =>
    ((await (await fetch(`${base}/__mock/workspaces/default/knowledgeBases`)).json()) as { name: string }[]).map(
      (kb) => kb.name,
    );

  it("accepts a 1 KB file then a 2 MB file: 201 with both, in order", async () => {
    const res = await curl("curl small then big", ["small.txt", "big.txt"]);
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect(res.json.files.map((f: { content: string }) => f.content)).toEqual(["small.txt", "big.txt"]);
  });

  it("refuses a 1 KB file then one of 25 MB + 1 byte with 413, creating nothing", async () => {
    const before = await names();
    const res = await curl("curl small then too big", ["small.txt", "too-big.txt"]);
    expect(res.status, JSON.stringify(res.json)).toBe(413);
    expectErrorBody(res.json, 413, PATH);
    expect(await names()).toEqual(before);
  });
});

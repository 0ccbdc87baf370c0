/**
 * Streaming multipart reader for E9 (busboy). Files are never buffered: each chunk is counted and the
 * first bytes are kept for sniffing. Limits: 25 MB per file (413), allowed kinds by extension and
 * content (415), bounded field sizes and counts (400).
 */
import busboy from "busboy";
import type { Request } from "express";
import { ApiError, invalid } from "../http/errors.js";

export const MAX_FILE_BYTES = 25 * 1024 * 1024;
const MAX_FIELD_BYTES = 1024 * 1024;
const MAX_FILES = 20;
const SNIFF_BYTES = 4096;
/** Boundaries and part headers around a field (busboy caps a part's headers at 16 KB), and chunk skew. */
const PART_SLACK_BYTES = 256 * 1024;

export type FileKind = "pdf" | "txt" | "html" | "markdown" | "docx";

export interface UploadedFile {
  filename: string;
  kind: FileKind;
  bytes: number;
}

const KIND_BY_EXTENSION: Record<string, FileKind> = {
  pdf: "pdf",
  txt: "txt",
  text: "txt",
  html: "html",
  htm: "html",
  md: "markdown",
  markdown: "markdown",
  docx: "docx",
};

/** Content must agree with the extension: PDF and DOCX by magic bytes, the text kinds as UTF-8 text. */
function contentMatches(kind: FileKind, head: Buffer): boolean {
  if (kind === "pdf") return head.subarray(0, 5).toString("latin1") === "%PDF-";
  if (kind === "docx") return head.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04]));
  if (head.includes(0)) return false;
  // A multi-byte character may be cut at the sniff boundary: drop up to 3 trailing bytes before decoding.
  for (let cut = 0; cut <= 3 && cut <= head.length; cut++) {
    try {
      new TextDecoder("utf-8", { fatal: true }).decode(head.subarray(0, head.length - cut));
      return true;
    } catch {
      /* try a shorter prefix */
    }
  }
  return false;
}

/** A browser sends an empty, nameless file part for a file input left empty: that part is no source. */
function skipIfEmpty(stream: NodeJS.ReadableStream, refuse: () => void): void {
  let bytes = 0;
  stream.on("data", (chunk: Buffer) => void (bytes += chunk.length));
  stream.on("end", () => {
    if (bytes > 0) refuse();
  });
}

export function readMultipart(req: Request): Promise<{ fields: Record<string, string>; files: UploadedFile[] }> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        // busboy signals `limit` when a file reaches fileSize bytes, so a file of exactly 25 MB (the
        // documented maximum, still allowed) would be refused: the limit is one byte past it.
        limits: { fileSize: MAX_FILE_BYTES + 1, fieldSize: MAX_FIELD_BYTES, files: MAX_FILES, fields: 50, parts: 100 },
        defParamCharset: "utf8",
      });
    } catch (e) {
      reject(new ApiError(400, `Malformed multipart request: ${(e as Error).message}`));
      return;
    }
    const fields: Record<string, string> = Object.create(null);
    const files: UploadedFile[] = [];
    let failed = false;

    const fail = (error: ApiError) => {
      if (failed) return;
      failed = true;
      // Stop parsing, keep reading the socket to its end without keeping anything, then answer.
      req.unpipe(parser);
      parser.removeAllListeners();
      parser.on("error", () => undefined);
      req.resume();
      reject(error);
    };

    // busboy tells of a field only at its end, so a 100 MB text field would be read whole before its
    // 400. Body bytes since the last part that no open file took are counted: past a field's limit
    // (and room for part headers) the answer comes at once.
    let received = 0;
    let mark = 0;
    let fileOpen = false;
    const markPart = () => void (mark = received);
    req.on("data", (chunk: Buffer) => {
      received += chunk.length;
      if (fileOpen) mark = received;
      else if (received - mark > MAX_FIELD_BYTES + PART_SLACK_BYTES) {
        fail(new ApiError(400, `A form field exceeds ${MAX_FIELD_BYTES} bytes`, { body: `form fields must be at most ${MAX_FIELD_BYTES} bytes` }));
      }
    });

    parser.on("field", (name, value, info) => {
      markPart();
      // A part without a filename is a text field to busboy: under the files' name it is no file.
      if (name === "knowledge_base_files") return fail(invalid({ [name]: "must be a file part (with a filename)" }));
      if (info.valueTruncated) return fail(invalid({ [name]: `must be at most ${MAX_FIELD_BYTES} bytes` }));
      if (name in fields) return fail(invalid({ [name]: "must be sent once" }));
      fields[name] = value;
    });

    parser.on("file", (name, stream, info) => {
      fileOpen = true;
      stream.once("close", () => {
        fileOpen = false;
        markPart();
      });
      // A form cut short errors the open file stream too; unheard, that error would end the process.
      stream.on("error", (e: Error) => fail(new ApiError(400, `Malformed multipart body: ${e.message}`)));
      if (name !== "knowledge_base_files") {
        stream.resume();
        return fail(invalid({ [name]: "is not a file field: files go under knowledge_base_files" }));
      }
      const filename = info.filename ?? "";
      if (filename === "") return skipIfEmpty(stream, () => fail(new ApiError(415, "A file without a name is not PDF, TXT, HTML, Markdown or DOCX")));
      const extension = filename.includes(".") ? filename.split(".").pop()!.toLowerCase() : "";
      const kind = KIND_BY_EXTENSION[extension];
      if (!kind) {
        stream.resume();
        return fail(new ApiError(415, `File ${filename || "(unnamed)"} is not PDF, TXT, HTML, Markdown or DOCX`));
      }
      let bytes = 0;
      const head: Buffer[] = [];
      let headBytes = 0;
      stream.on("data", (chunk: Buffer) => {
        bytes += chunk.length;
        if (headBytes < SNIFF_BYTES) {
          head.push(chunk.subarray(0, SNIFF_BYTES - headBytes));
          headBytes += Math.min(chunk.length, SNIFF_BYTES - headBytes);
        }
      });
      stream.on("limit", () => fail(new ApiError(413, `File ${filename} exceeds the 25 MB limit`)));
      stream.on("end", () => {
        if (failed) return;
        if (!contentMatches(kind, Buffer.concat(head))) {
          return fail(new ApiError(415, `File ${filename} does not contain ${kind.toUpperCase()} content`));
        }
        files.push({ filename, kind, bytes });
      });
    });

    parser.on("filesLimit", () => fail(invalid({ knowledge_base_files: `at most ${MAX_FILES} files` })));
    parser.on("fieldsLimit", () => fail(invalid({ body: "too many form fields" })));
    parser.on("partsLimit", () => fail(invalid({ body: "too many form parts" })));
    parser.on("error", (e: Error) => fail(new ApiError(400, `Malformed multipart body: ${e.message}`)));
    parser.on("close", () => {
      if (!failed) resolve({ fields: { ...fields }, files });
    });
    req.on("aborted", () => fail(new ApiError(400, "Request aborted by the client")));
    req.pipe(parser);
  });
}

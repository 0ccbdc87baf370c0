/**
 * Streaming multipart reader for E9 in the Node doors (busboy). Files are never buffered: each chunk
 * is counted and the first bytes are kept for the content check. The form's rules live in
 * core/uploads.ts; here they are applied as the bytes arrive, so a refused upload (a 100 MB file, a
 * file of the wrong kind) is answered at once instead of after its last byte.
 */
import busboy from "busboy";
import type { IncomingMessage } from "node:http";
import { ApiError, invalid } from "../core/errors.js";
import type { FormPart } from "../core/exchange.js";
import {
  FILE_FIELD,
  MAX_FIELD_BYTES,
  MAX_FILE_BYTES,
  MAX_FILES,
  SNIFF_BYTES,
  TEXT_FIELDS,
  fieldTooLarge,
  fileKind,
  fileTooLarge,
  isTextFieldPart,
  refuseContent,
  refuseFilePart,
  refuseNamelessFile,
  textFieldValue,
  tooManyFiles,
} from "../core/uploads.js";

/** Boundaries and part headers around a field (busboy caps a part's headers at 16 KB), and chunk skew. */
const PART_SLACK_BYTES = 256 * 1024;

export function readMultipart(req: IncomingMessage): Promise<FormPart[]> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        // busboy signals `limit` when a file reaches fileSize bytes, so a file of exactly 25 MB (the
        // documented maximum, still allowed) would be refused: the limit is one byte past it.
        // A text field sent with a filename (a generated client's Blob) is a file part to busboy too.
        limits: {
          fileSize: MAX_FILE_BYTES + 1,
          fieldSize: MAX_FIELD_BYTES,
          files: MAX_FILES + TEXT_FIELDS.length,
          fields: 50,
          parts: 100,
        },
        defParamCharset: "utf8",
      });
    } catch (e) {
      reject(new ApiError(400, `Malformed multipart request: ${(e as Error).message}`));
      return;
    }
    const parts: FormPart[] = [];
    const fieldNames = new Set<string>();
    let pendingFiles = 0;
    let files = 0;
    let closed = false;
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
    const settle = () => {
      if (closed && pendingFiles === 0 && !failed) resolve(parts);
    };

    // busboy tells of a field only at its end, so a 100 MB text field would be read whole before its
    // 400. Body bytes since the last part that no open file took are counted: past a field's limit
    // (and room for part headers) the answer comes at once.
    // Each file part is tracked on its own, from its `file` event to the end of its stream: a file's
    // stream ends a tick after busboy has already opened the next part (both in one chunk of the
    // body), so one shared "a file is open" flag was cleared by the first file while the second was
    // streaming, and a second file over 1.25 MB was taken for an oversized field (400).
    let received = 0;
    let mark = 0;
    const openFiles = new Set<NodeJS.ReadableStream>();
    const markPart = () => void (mark = received);
    req.on("data", (chunk: Buffer) => {
      received += chunk.length;
      if (openFiles.size > 0) mark = received;
      else if (received - mark > MAX_FIELD_BYTES + PART_SLACK_BYTES) {
        fail(
          new ApiError(400, `A form field exceeds ${MAX_FIELD_BYTES} bytes`, {
            body: `form fields must be at most ${MAX_FIELD_BYTES} bytes`,
          }),
        );
      }
    });

    parser.on("field", (name, value, info) => {
      markPart();
      if (name === FILE_FIELD) return fail(invalid({ [name]: "must be a file part (with a filename)" }));
      if (info.valueTruncated) return fail(fieldTooLarge(name));
      if (fieldNames.has(name)) return fail(invalid({ [name]: "must be sent once" }));
      fieldNames.add(name);
      parts.push({ name, value });
    });

    parser.on("file", (name, stream, info) => {
      openFiles.add(stream);
      const fileDone = () => {
        // The bytes of this file so far were its own, not a field's.
        if (openFiles.delete(stream)) markPart();
      };
      stream.once("end", fileDone);
      stream.once("close", fileDone);
      // A form cut short errors the open file stream too; unheard, that error would end the process.
      stream.on("error", (e: Error) => fail(new ApiError(400, `Malformed multipart body: ${e.message}`)));
      const filename = info.filename ?? "";
      if (isTextFieldPart(name, info.mimeType)) return readTextField(name, stream);
      if (++files > MAX_FILES) {
        stream.resume();
        return fail(tooManyFiles());
      }
      const refused = refuseFilePart(name, filename);
      if (refused) {
        stream.resume();
        return fail(refused);
      }
      const part: FormPart = { name, file: { filename, bytes: 0, head: new Uint8Array(0) } };
      parts.push(part);
      pendingFiles++;
      const head: Buffer[] = [];
      let headBytes = 0;
      stream.on("data", (chunk: Buffer) => {
        part.file.bytes += chunk.length;
        if (headBytes < SNIFF_BYTES) {
          head.push(chunk.subarray(0, SNIFF_BYTES - headBytes));
          headBytes += Math.min(chunk.length, SNIFF_BYTES - headBytes);
        }
      });
      stream.on("limit", () => fail(fileTooLarge(filename)));
      stream.on("end", () => {
        pendingFiles--;
        if (failed) return;
        part.file.head = Buffer.concat(head);
        const wrong =
          filename === ""
            ? refuseNamelessFile(part.file.bytes)
            : refuseContent(filename, fileKind(filename)!, part.file.head);
        if (wrong) return fail(wrong);
        settle();
      });
    });

    /** A text field whose part has a filename: read whole (up to the field limit) and kept in its place as a field. */
    const readTextField = (name: string, stream: NodeJS.ReadableStream) => {
      if (fieldNames.has(name)) {
        stream.resume();
        return fail(invalid({ [name]: "must be sent once" }));
      }
      fieldNames.add(name);
      const part: FormPart = { name, value: "" };
      parts.push(part);
      pendingFiles++;
      const chunks: Buffer[] = [];
      let bytes = 0;
      stream.on("data", (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes > MAX_FIELD_BYTES) return fail(fieldTooLarge(name));
        chunks.push(chunk);
      });
      stream.on("end", () => {
        pendingFiles--;
        if (failed) return;
        Object.assign(part, textFieldValue(name, Buffer.concat(chunks)));
        settle();
      });
    };

    parser.on("filesLimit", () => fail(tooManyFiles()));
    parser.on("fieldsLimit", () => fail(invalid({ body: "too many form fields" })));
    parser.on("partsLimit", () => fail(invalid({ body: "too many form parts" })));
    parser.on("error", (e: Error) => fail(new ApiError(400, `Malformed multipart body: ${e.message}`)));
    parser.on("close", () => {
      closed = true;
      settle();
    });
    req.on("aborted", () => fail(new ApiError(400, "Request aborted by the client")));
    req.pipe(parser);
  });
}

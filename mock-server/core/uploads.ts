/**
 * The rules of E9's multipart form, in one place for every door: which parts are allowed, which
 * files (kind by extension, confirmed by content), and the limits. The node:http door applies the
 * part rules and limits as the bytes stream in, so a refused upload is answered without being read
 * to its end; readForm applies all of them again to the parsed parts, whatever door parsed them.
 */
import { ApiError, invalid } from "./errors.js";
import type { FormPart } from "./exchange.js";
import { type CompiledValidator, toValidationErrors } from "./validation.js";

export const MAX_FILE_BYTES = 25 * 1024 * 1024;
export const MAX_FIELD_BYTES = 1024 * 1024;
export const MAX_FILES = 20;
/** How much of each file is kept to check its content. */
export const SNIFF_BYTES = 4096;
export const FILE_FIELD = "knowledge_base_files";
/** The form's text fields (every field of KnowledgeBaseCreate but the files). */
export const TEXT_FIELDS: readonly string[] = ["name", "knowledge_base_texts", "knowledge_base_urls"];
/** Types of a text field's part that carries a filename: what a generated client gives the Blob it wraps a value in. */
export const TEXT_PART_TYPES: readonly string[] = ["text/plain", "application/json"];

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

export function fileKind(filename: string): FileKind | undefined {
  const extension = filename.includes(".") ? filename.split(".").pop()!.toLowerCase() : "";
  return Object.hasOwn(KIND_BY_EXTENSION, extension) ? KIND_BY_EXTENSION[extension] : undefined;
}

/**
 * A part with a filename under a text field is that field when its type is text/plain or
 * application/json, its content the value: generators (orval, for a field with an encoding
 * contentType or a contentMediaType) wrap a string in a Blob, which FormData sends as a file named
 * "blob". A type that is not a media type reads as text/plain, the default of RFC 7578 (busboy does
 * the same). Any other type under a text field is a mistake: refuseFilePart answers it.
 */
export function isTextFieldPart(name: string, type: string | undefined): boolean {
  if (!TEXT_FIELDS.includes(name)) return false;
  const essence = (type ?? "").split(";")[0].trim().toLowerCase();
  const mediaType = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(essence) ? essence : "text/plain";
  return TEXT_PART_TYPES.includes(mediaType);
}

/** A text field sent as a part with a filename, read whole: its bytes as UTF-8 (RFC 7578's default charset). */
export function textFieldValue(name: string, bytes: Uint8Array): { name: string; value: string; truncated?: boolean } {
  if (bytes.length > MAX_FIELD_BYTES) return { name, value: "", truncated: true };
  return { name, value: new TextDecoder().decode(bytes) };
}

/** What is wrong with a file part, judged from its header alone (field name and filename). */
export function refuseFilePart(name: string, filename: string): ApiError | undefined {
  if (name !== FILE_FIELD) return invalid({ [name]: `is not a file field: files go under ${FILE_FIELD}` });
  if (filename !== "" && !fileKind(filename))
    return new ApiError(415, `File ${filename} is not PDF, TXT, HTML, Markdown or DOCX`);
  return undefined;
}

/** A browser sends an empty, nameless file part for a file input left empty: that part is no source. */
export function refuseNamelessFile(bytes: number): ApiError | undefined {
  return bytes > 0 ? new ApiError(415, "A file without a name is not PDF, TXT, HTML, Markdown or DOCX") : undefined;
}

export const fileTooLarge = (filename: string) => new ApiError(413, `File ${filename} exceeds the 25 MB limit`);
export const fieldTooLarge = (name: string) => invalid({ [name]: `must be at most ${MAX_FIELD_BYTES} bytes` });
export const tooManyFiles = () => invalid({ [FILE_FIELD]: `at most ${MAX_FILES} files` });

const PDF = [0x25, 0x50, 0x44, 0x46, 0x2d]; // %PDF-
const ZIP = [0x50, 0x4b, 0x03, 0x04]; // DOCX is a ZIP container

const startsWith = (head: Uint8Array, magic: number[]) => magic.every((byte, i) => head[i] === byte);

/** Content must agree with the extension: PDF and DOCX by magic bytes, the text kinds as UTF-8 text. */
export function contentMatches(kind: FileKind, head: Uint8Array): boolean {
  if (kind === "pdf") return startsWith(head, PDF);
  if (kind === "docx") return startsWith(head, ZIP);
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

export function refuseContent(filename: string, kind: FileKind, head: Uint8Array): ApiError | undefined {
  return contentMatches(kind, head)
    ? undefined
    : new ApiError(415, `File ${filename} does not contain ${kind.toUpperCase()} content`);
}

const byteLength = (text: string) =>
  text.length * 3 <= MAX_FIELD_BYTES ? text.length : new TextEncoder().encode(text).length;

/** The form's text fields and its files, every rule applied in the order the parts came; throws the first failure. */
export function readForm(parts: FormPart[]): { fields: Record<string, string>; files: UploadedFile[] } {
  const fields: Record<string, string> = Object.create(null);
  const files: UploadedFile[] = [];
  let fileParts = 0;
  for (const part of parts) {
    if ("value" in part) {
      // A part without a filename is a text field: under the files' name it is no file.
      if (part.name === FILE_FIELD) throw invalid({ [part.name]: "must be a file part (with a filename)" });
      if (part.truncated || byteLength(part.value) > MAX_FIELD_BYTES) throw fieldTooLarge(part.name);
      if (part.name in fields) throw invalid({ [part.name]: "must be sent once" });
      fields[part.name] = part.value;
      continue;
    }
    if (++fileParts > MAX_FILES) throw tooManyFiles();
    const { filename, bytes, head } = part.file;
    const refused = refuseFilePart(part.name, filename) ?? (filename === "" ? refuseNamelessFile(bytes) : undefined);
    if (refused) throw refused;
    if (filename === "") continue;
    if (bytes > MAX_FILE_BYTES) throw fileTooLarge(filename);
    const kind = fileKind(filename)!;
    const wrongContent = refuseContent(filename, kind, head);
    if (wrongContent) throw wrongContent;
    files.push({ filename, kind, bytes });
  }
  return { fields: { ...fields }, files };
}

/** A multipart form as handlers receive it: every rule applied, its fields valid against the spec. */
export interface MultipartForm {
  fields: Record<string, string>;
  files: UploadedFile[];
}

export const EMPTY_FORM: MultipartForm = Object.freeze({ fields: Object.freeze({}), files: [] }) as MultipartForm;

/**
 * The pipeline's multipart step: the form's rules (readForm), then its text fields, with the files'
 * names under FILE_FIELD, against the operation's body schema. A handler receives only what passed.
 */
export function validatedForm(parts: FormPart[], validateFields: CompiledValidator | undefined): MultipartForm {
  const form = readForm(parts);
  if (validateFields && !validateFields({ ...form.fields, [FILE_FIELD]: form.files.map((f) => f.filename) }))
    throw invalid(toValidationErrors(validateFields.errors));
  return form;
}

/**
 * E9: knowledge bases from multipart/form-data, parsed as a stream. Each file is counted, sniffed and
 * dropped chunk by chunk, so a 100 MB upload costs no more memory than a small one: past 25 MB the
 * request is answered 413 and the rest of the body is discarded unread into memory.
 */
import type { HandlerTable } from "../http/context.js";
import { ApiError, invalid } from "../http/errors.js";
import type { KnowledgeBase } from "../store/records.js";
import { compile, toValidationErrors } from "../http/schemas.js";
import { findOperation } from "../http/operations.js";
import { readMultipart, type UploadedFile } from "./multipart.js";

type Source = KnowledgeBase["files"][number];

let validateFields: ReturnType<typeof compile> | undefined;

/** The form's text fields are validated against the spec's KnowledgeBaseCreate schema. */
function checkFields(fields: Record<string, string>, files: UploadedFile[]): void {
  validateFields ??= compile("request", findOperation("createKnowledgeBase").bodySchema);
  const candidate = { ...fields, knowledge_base_files: files.map((f) => f.filename) };
  if (!validateFields(candidate)) throw invalid(toValidationErrors(validateFields.errors));
}

function parseJsonArray(field: string, raw: string | undefined): unknown[] {
  if (raw === undefined || raw.trim() === "") return [];
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw invalid({ [field]: "must be a JSON array string" });
  }
  if (!Array.isArray(value)) throw invalid({ [field]: "must be a JSON array string" });
  return value;
}

function textSources(raw: string | undefined): string[] {
  return parseJsonArray("knowledge_base_texts", raw).map((item, i) => {
    if (typeof item === "string") return item;
    const entry = item as { title?: unknown; text?: unknown } | null;
    const title = typeof entry?.title === "string" ? entry.title : undefined;
    const text = typeof entry?.text === "string" ? entry.text : undefined;
    if (!entry || typeof entry !== "object" || Array.isArray(entry) || (title === undefined && text === undefined)) {
      throw invalid({ [`knowledge_base_texts[${i}]`]: "must be a string or an object with a string title and/or text" });
    }
    return title !== undefined && text !== undefined ? `${title}\n\n${text}` : (title ?? text)!;
  });
}

function urlSources(raw: string | undefined): string[] {
  return parseJsonArray("knowledge_base_urls", raw).map((item, i) => {
    const ok = typeof item === "string" && /^https?:\/\//i.test(item) && URL.canParse(item);
    if (!ok) throw invalid({ [`knowledge_base_urls[${i}]`]: "must be an http or https URL string" });
    return item as string;
  });
}

export const knowledgeBaseHandlers: HandlerTable<"createKnowledgeBase"> = {
  createKnowledgeBase: async ({ req, workspace, services }) => {
    if (!req.is("multipart/form-data")) throw new ApiError(415, "Content-Type must be multipart/form-data");
    const { fields, files } = await readMultipart(req);
    checkFields(fields, files);
    const documentId = () => workspace.random.uuid();
    const sources: Source[] = [
      ...textSources(fields.knowledge_base_texts).map((content) => ({ documentId: documentId(), type: "text" as const, content })),
      ...urlSources(fields.knowledge_base_urls).map((content) => ({ documentId: documentId(), type: "url" as const, content })),
      ...files.map((file) => ({ documentId: documentId(), type: "file", content: file.filename })),
    ];
    const now = services.clock.iso();
    const kb: KnowledgeBase = { kbId: `kb_${workspace.random.hex(20)}`, name: fields.name, files: sources, createdAt: now, updatedAt: now };
    return { status: 201, body: workspace.collections.knowledgeBases.create(kb) };
  },
};

/**
 * E9: knowledge bases from multipart/form-data. The door parsed the form (the node:http door as a
 * stream: each file counted, sniffed and dropped chunk by chunk, 413 past 25 MB); the form's rules
 * (core/uploads.ts) and its fields' schema are applied here.
 */
import type { HandlerTable } from "./context.js";
import type { Contract } from "../core/contract.js";
import { invalid } from "../core/errors.js";
import { readForm, type UploadedFile } from "../core/uploads.js";
import { toValidationErrors } from "../core/validation.js";
import type { KnowledgeBase } from "../store/records.js";

type Source = KnowledgeBase["files"][number];

/** The form's text fields are validated against the spec's KnowledgeBaseCreate schema. */
function checkFields(contract: Contract, fields: Record<string, string>, files: UploadedFile[]): void {
  const validateFields = contract.operation("createKnowledgeBase").validateBody!;
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
      throw invalid({
        [`knowledge_base_texts[${i}]`]: "must be a string or an object with a string title and/or text",
      });
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
  createKnowledgeBase: ({ parts, workspace, services }) => {
    const { fields, files } = readForm(parts);
    checkFields(services.contract(), fields, files);
    const documentId = () => workspace.random.uuid();
    const sources: Source[] = [
      ...textSources(fields.knowledge_base_texts).map((content) => ({
        documentId: documentId(),
        type: "text" as const,
        content,
      })),
      ...urlSources(fields.knowledge_base_urls).map((content) => ({
        documentId: documentId(),
        type: "url" as const,
        content,
      })),
      ...files.map((file) => ({ documentId: documentId(), type: "file", content: file.filename })),
    ];
    const now = workspace.clock.iso();
    const kb: KnowledgeBase = {
      kbId: `kb_${workspace.random.hex(20)}`,
      name: fields.name,
      files: sources,
      createdAt: now,
      updatedAt: now,
    };
    return { status: 201, body: workspace.collections.knowledgeBases.create(kb) };
  },
};

/**
 * E9: knowledge bases from multipart/form-data. The door parsed the form (the node:http door as a
 * stream: each file counted, sniffed and dropped chunk by chunk, 413 past 25 MB) and the pipeline
 * applied its rules (core/uploads.ts) and its fields' schema; what is left here is reading the JSON
 * arrays inside the text fields, which the schema sees only as strings.
 */
import type { HandlerTable } from "./context.js";
import { invalid } from "../core/errors.js";
import type { KnowledgeBase } from "../store/records.js";

type Source = KnowledgeBase["files"][number];

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
  createKnowledgeBase: ({ form, workspace }) => {
    const { fields, files } = form;
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

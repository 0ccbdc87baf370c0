/**
 * Knowledge bases (2.8). Sources keep the order E9 processes them in: texts, then URLs, then files
 * (files grouped pdf, txt, html, markdown, docx). `type` is text, url or file (x-assumption of
 * KnowledgeBaseSource.type); `content` is the text, the URL, or the file name.
 */
import type { KnowledgeBase } from "../store/records.js";
import { clampPast, iso, lowerAlnum, parseTime, slugify, DAY, MINUTE, type BuildContext } from "./context.js";

type Source = KnowledgeBase["files"][number];

export const FILE_TYPES = ["pdf", "txt", "html", "markdown", "docx"] as const;
const EXTENSION: Record<(typeof FILE_TYPES)[number], string> = {
  pdf: "pdf",
  txt: "txt",
  html: "html",
  markdown: "md",
  docx: "docx",
};

const TOPICS = [
  "Returns policy",
  "Opening hours",
  "Shipping times",
  "Pricing plans",
  "Warranty",
  "Appointment rules",
  "Payment options",
  "Privacy notice",
];

/** `kb_` and 20 lowercase letters or digits: inside the documented 1..64 characters. */
export function newKbId(ctx: BuildContext): string {
  return `kb_${lowerAlnum(ctx, 20)}`;
}

export function buildKnowledgeBase(ctx: BuildContext, partial: Partial<KnowledgeBase> = {}): KnowledgeBase {
  const { faker } = ctx;
  const createdMs = parseTime(partial.createdAt) ?? ctx.now.getTime();
  const name =
    partial.name ??
    `${faker.company.name()} ${faker.helpers.arrayElement(["FAQ", "Help center", "Policies", "Product guide"])}`;
  const files = partial.files ?? buildSources(ctx);
  // Sources were added over the following days at most; updatedAt follows the last change.
  const updatedMs = Math.max(
    createdMs,
    parseTime(partial.updatedAt) ??
      (faker.datatype.boolean(0.4)
        ? clampPast(ctx, createdMs + faker.number.int({ min: MINUTE, max: 5 * DAY }), createdMs)
        : createdMs),
  );
  return {
    kbId: partial.kbId ?? newKbId(ctx),
    name: name.slice(0, 512),
    files,
    createdAt: iso(createdMs),
    updatedAt: iso(updatedMs),
  };
}

/** One to six sources, at least one, in processing order. */
function buildSources(ctx: BuildContext): Source[] {
  const { faker } = ctx;
  const source = (type: Source["type"], content: string): Source => ({
    documentId: faker.string.uuid(),
    type,
    content,
  });
  for (;;) {
    const texts = faker.helpers
      .arrayElements(TOPICS, { min: 0, max: 2 })
      .map((topic) =>
        source("text", faker.datatype.boolean() ? `${topic}\n\n${faker.lorem.sentences(2)}` : faker.lorem.sentences(2)),
      );
    const urls = faker.helpers
      .arrayElements(TOPICS, { min: 0, max: 2 })
      .map((topic) => source("url", `https://docs.example.com/${slugify(topic)}`));
    const files = faker.helpers
      .arrayElements(FILE_TYPES, { min: 0, max: 3 })
      .sort((a, b) => FILE_TYPES.indexOf(a) - FILE_TYPES.indexOf(b))
      .map((type) => source("file", `${slugify(faker.helpers.arrayElement(TOPICS))}.${EXTENSION[type]}`));
    const all = [...texts, ...urls, ...files];
    if (all.length > 0) return all;
  }
}

/**
 * E9 create knowledge base (multipart). The label of the name field is not shown by the reference
 * (the kit assumes `name`), so every rule that creates one runs at level assumed.
 */
import { defineRules, obj, type RuleContext } from "../lib/rule.js";

const MB = 1024 * 1024;
const file = (bytes: string | Uint8Array, name: string, type: string) => new File([bytes as BlobPart], name, { type });
const FILES = {
  txt: () => file("Plain text source.\n", "notes.txt", "text/plain"),
  md: () => file("# Guide\n\nMarkdown source.\n", "guide.md", "text/markdown"),
  html: () => file("<html><body><p>HTML source</p></body></html>", "page.html", "text/html"),
  pdf: () => file("%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n", "price-list.pdf", "application/pdf"),
  docx: () => file(new Uint8Array([0x50, 0x4b, 0x03, 0x04, ...new TextEncoder().encode("[Content_Types].xml word/document.xml")]), "terms.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
};

async function create(t: RuleContext, fill: (form: FormData) => void, name: string | null = `${t.fixtures.runId} kb`) {
  const form = new FormData();
  fill(form);
  if (name !== null) form.set("name", name);
  const ex = await t.call("createKnowledgeBase", { method: "POST", path: "/v1/knowledge-bases", body: form });
  return ex;
}

function expectRejected(t: RuleContext, status: number, field?: string) {
  return async (ex: Awaited<ReturnType<typeof create>>, why: string) => {
    if (!t.expectStatus(ex, status, why) || !field) return;
    t.expect(typeof obj(ex).validationErrors?.[field] === "string", { pointer: `/validationErrors/${field}`, expected: "a message", actual: obj(ex).validationErrors, message: `validationErrors names ${field}` });
  };
}

const base = { operationId: "createKnowledgeBase", level: "assumed" as const, readOnly: false };

export const knowledgeBaseRules = defineRules("knowledge-bases", [
  {
    ...base, id: "createKnowledgeBase.sources-ordered",
    description: "Texts, URLs and files (PDF, TXT, HTML, Markdown, DOCX) are accepted and kept in the order text, URLs, files, whatever the form order.",
    run: async (t) => {
      const ex = await create(t, (form) => {
        for (const make of Object.values(FILES)) form.append("knowledge_base_files", make());
        form.set("knowledge_base_urls", JSON.stringify(["https://example.com/a", "https://example.com/b"]));
        form.set("knowledge_base_texts", JSON.stringify(["Opening hours are 9 to 5.", { title: "Returns", text: "30 days." }]));
      });
      if (!t.expectStatus(ex, 201)) return;
      const kb = obj(ex);
      t.expectEqual(kb.name, `${t.fixtures.runId} kb`, "/name", "the name sent is stored");
      t.expect(typeof kb.kbId === "string" && kb.kbId.length >= 1 && kb.kbId.length <= 64, { pointer: "/kbId", expected: "1 to 64 characters", actual: kb.kbId, message: "kbId length (2.8)" });
      const files = (kb.files ?? []) as Record<string, any>[];
      t.expectEqual(files.map((f) => f.type), ["text", "text", "url", "url", "file", "file", "file", "file", "file"], "/files", "sources in the order text, URLs, files, each of its kind (values assumed)");
      t.expectEqual(files.map((f) => f.content), ["Opening hours are 9 to 5.", "Returns\n\n30 days.", "https://example.com/a", "https://example.com/b", "notes.txt", "guide.md", "page.html", "price-list.pdf", "terms.docx"], "/files", "source contents: text, URL, file name");
      t.expectEqual(new Set(files.map((f) => f.documentId)).size, files.length, "/files", "every source has its own documentId");
    },
  },
  {
    ...base, id: "createKnowledgeBase.no-source",
    description: "A knowledge base may be created with a name only (assumption); files is then empty; names need not be unique, ids are.",
    run: async (t) => {
      const ex = await create(t, () => {});
      if (t.expectStatus(ex, 201)) t.expectEqual(obj(ex).files, [], "/files", "no sources");
      const twin = await create(t, () => {});
      if (t.expectStatus(twin, 201, "a second knowledge base of the same name is accepted (2.8)")) {
        t.expect(obj(twin).kbId !== obj(ex).kbId, { pointer: "/kbId", expected: `another id than ${obj(ex).kbId}`, actual: obj(twin).kbId, message: "each knowledge base has its own kbId" });
      }
    },
  },
  {
    ...base, id: "createKnowledgeBase.unsupported-type",
    description: "A file that is not PDF, TXT, HTML, Markdown or DOCX answers 415, by extension or by content.",
    run: async (t) => {
      const reject = expectRejected(t, 415);
      const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);
      await reject(await create(t, (f) => f.append("knowledge_base_files", file(png, "photo.png", "image/png"))), "a PNG image is refused with 415");
      await reject(await create(t, (f) => f.append("knowledge_base_files", file("not a pdf at all", "fake.pdf", "application/pdf"))), "a .pdf without PDF content is refused with 415");
    },
  },
  {
    ...base, id: "createKnowledgeBase.file-too-large",
    description: "A file over 25 MB answers 413 (on foreign targets only with --large-uploads).",
    run: async (t) => {
      if (!t.fixtures.isMock && !t.fixtures.largeUploads) return t.skip("uploads 25 MB; pass --large-uploads to run it on a foreign target");
      const big = new Uint8Array(25 * MB + 1).fill(0x61);
      await expectRejected(t, 413)(await create(t, (f) => f.append("knowledge_base_files", file(big, "big.txt", "text/plain"))), "a file of 25 MB + 1 byte is refused with 413");
    },
  },
  {
    ...base, id: "createKnowledgeBase.name-bounds",
    description: "A name of 512 characters is accepted; 513 characters or no name answers 400 naming it.",
    run: async (t) => {
      const ok = await create(t, () => {}, "n".repeat(512));
      if (t.expectStatus(ok, 201, "a name of 512 characters is accepted")) t.expectEqual(obj(ok).name, "n".repeat(512), "/name", "the long name is kept whole");
      const reject = expectRejected(t, 400, "name");
      await reject(await create(t, () => {}, "n".repeat(513)), "a name of 513 characters is refused");
      await reject(await create(t, (f) => f.set("knowledge_base_texts", "[\"x\"]"), null), "a missing name is refused");
    },
  },
  {
    ...base, id: "createKnowledgeBase.invalid-sources",
    description: "knowledge_base_texts and knowledge_base_urls must hold JSON arrays of the documented elements: otherwise 400.",
    run: async (t) => {
      const reject = expectRejected(t, 400);
      await reject(await create(t, (f) => f.set("knowledge_base_texts", "not json")), "texts that are not JSON");
      await reject(await create(t, (f) => f.set("knowledge_base_texts", "[42]")), "a text that is neither a string nor an object");
      await reject(await create(t, (f) => f.set("knowledge_base_urls", "\"https://example.com\"")), "urls that are not an array");
    },
  },
]);

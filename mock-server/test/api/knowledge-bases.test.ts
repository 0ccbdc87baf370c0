/** E9: multipart, source order, limits (413 past 25 MB, 415 for other types), name bound. */
import { describe, expect, it } from "vitest";
import { expectErrorBody, useMock } from "../harness.js";

const t = useMock();

function form(fields: Record<string, string>, files: [string, BlobPart, string?][] = []): FormData {
  const data = new FormData();
  for (const [k, v] of Object.entries(fields)) data.set(k, v);
  for (const [name, content, type] of files)
    data.append("knowledge_base_files", new Blob([content], { type: type ?? "application/octet-stream" }), name);
  return data;
}

const post = (body: FormData | string, headers: Record<string, string> = {}) =>
  t.raw("/v1/knowledge-bases", { method: "POST", body, headers });

describe("knowledge bases", () => {
  it("creates from texts, URLs and files, in that order (201)", async () => {
    const res = await post(
      form(
        {
          name: "FAQ",
          knowledge_base_urls: '["https://example.com/faq"]',
          knowledge_base_texts: '["Plain", {"title":"T","text":"Body"}]',
        },
        [
          ["guide.md", "# Guide\nHello"],
          ["manual.pdf", "%PDF-1.7\n..."],
          ["notes.txt", "héllo ✓"],
        ],
      ),
    );
    expect(res.status).toBe(201);
    const kb = await res.json();
    expect(kb.kbId.length).toBeGreaterThanOrEqual(1);
    expect(kb.kbId.length).toBeLessThanOrEqual(64);
    expect(kb.files.map((f: { type: string; content: string }) => [f.type, f.content])).toEqual([
      ["text", "Plain"],
      ["text", "T\n\nBody"],
      ["url", "https://example.com/faq"],
      ["file", "guide.md"],
      ["file", "manual.pdf"],
      ["file", "notes.txt"],
    ]);
  });

  it("refuses a disallowed type (415) by extension and by content", async () => {
    const png = await post(form({ name: "x" }, [["photo.png", "\x89PNG"]]));
    expect(png.status).toBe(415);
    expectErrorBody(await png.json(), 415, "/v1/knowledge-bases");
    const fakePdf = await post(form({ name: "x" }, [["fake.pdf", "not a pdf"]]));
    expect(fakePdf.status).toBe(415);
    const binaryTxt = await post(form({ name: "x" }, [["bin.txt", new Uint8Array([0, 1, 2, 0xff])]]));
    expect(binaryTxt.status).toBe(415);
  });

  it("refuses a file over 25 MB with 413 and stores nothing", async () => {
    const before = (await (await t.raw("/__mock/workspaces/default/knowledgeBases")).json()).length;
    const res = await post(form({ name: "big" }, [["big.txt", new Uint8Array(25 * 1024 * 1024 + 1).fill(97)]]));
    expect(res.status).toBe(413);
    expectErrorBody(await res.json(), 413, "/v1/knowledge-bases");
    expect((await (await t.raw("/__mock/workspaces/default/knowledgeBases")).json()).length).toBe(before);
  });

  it("accepts a file of exactly 25 MB, the documented maximum", async () => {
    const res = await post(form({ name: "largest" }, [["largest.txt", new Uint8Array(25 * 1024 * 1024).fill(97)]]));
    expect(res.status).toBe(201);
    expect((await res.json()).files).toEqual([expect.objectContaining({ type: "file", content: "largest.txt" })]);
  });

  it.each([
    [{ name: "n".repeat(513) }, "name"],
    [{}, "name"],
    [{ name: "x", knowledge_base_texts: "not json" }, "knowledge_base_texts"],
    [{ name: "x", knowledge_base_texts: "[42]" }, "knowledge_base_texts[0]"],
    [{ name: "x", knowledge_base_urls: '["ftp://x"]' }, "knowledge_base_urls[0]"],
  ])("rejects %j with 400 naming %s", async (fields, field) => {
    const res = await post(form(fields as Record<string, string>));
    expect(res.status).toBe(400);
    expect((await res.json()).validationErrors).toHaveProperty(field);
  });

  it("accepts a name of exactly 512 characters and answers JSON with 415", async () => {
    expect((await post(form({ name: "n".repeat(512) }))).status).toBe(201);
    expect((await post('{"name":"x"}', { "Content-Type": "application/json" })).status).toBe(415);
  });
});

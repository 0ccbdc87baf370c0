/**
 * E9 bodies: small valid forms (a name, text and URL sources, files of the allowed kinds) and garbage
 * (no boundary, wrong boundary, truncated parts, a file under the wrong field, duplicated fields,
 * disallowed or lying file types, random bytes).
 */
import fc from "fast-check";
import type { Expectation } from "./case.js";
import { oddString } from "./hostile.js";

export interface Form {
  contentType: string;
  body: Uint8Array;
  /** What the spec (with the kit's assumptions) says of it. */
  expect: Expectation;
  why: string;
}

interface Part {
  name: string;
  filename?: string;
  type?: string;
  content: string | Uint8Array;
}

const BOUNDARY = "fuzzBoundary7MA4YWxkTrZu0gW";

export function encodeForm(parts: Part[], boundary = BOUNDARY): Uint8Array {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename !== undefined ? `; filename="${part.filename}"` : ""}`;
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${part.type ? `Content-Type: ${part.type}\r\n` : ""}\r\n`,
      ),
    );
    chunks.push(Buffer.from(part.content as string));
    chunks.push(Buffer.from("\r\n"));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

const FILES: Part[] = [
  { name: "knowledge_base_files", filename: "faq.txt", type: "text/plain", content: "Opening hours are 9 to 5." },
  { name: "knowledge_base_files", filename: "guide.md", type: "text/markdown", content: "# Returns\n30 days." },
  { name: "knowledge_base_files", filename: "page.html", type: "text/html", content: "<h1>Prices</h1>" },
  {
    name: "knowledge_base_files",
    filename: "doc.pdf",
    type: "application/pdf",
    content: "%PDF-1.4\n%fake but well-started\n",
  },
  {
    name: "knowledge_base_files",
    filename: "doc.docx",
    type: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    content: Buffer.from([0x50, 0x4b, 0x03, 0x04, 1, 2, 3]),
  },
];

const name = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9 ]{1,40}$/).filter((s) => s.trim().length > 0),
  oddString.filter((s) => s.length > 0 && s.length <= 512 && !s.includes("\u0000")),
);
const texts = fc.array(
  fc.oneof(
    fc.string({ maxLength: 30 }),
    fc.record({ title: fc.string({ maxLength: 20 }), text: fc.string({ maxLength: 30 }) }),
  ),
  { maxLength: 3 },
);
const urls = fc.array(fc.webUrl({ validSchemes: ["https", "http"] }), { maxLength: 2 });

export const validForm: fc.Arbitrary<Form> = fc
  .record({ name, texts, urls, files: fc.subarray(FILES, { maxLength: 3 }) })
  .map(({ name, texts, urls, files }) => ({
    contentType: `multipart/form-data; boundary=${BOUNDARY}`,
    body: encodeForm([
      { name: "name", content: name },
      ...(texts.length > 0 ? [{ name: "knowledge_base_texts", content: JSON.stringify(texts) }] : []),
      ...(urls.length > 0 ? [{ name: "knowledge_base_urls", content: JSON.stringify(urls) }] : []),
      ...files,
    ]),
    expect: "accept",
    why: `a form with ${texts.length} texts, ${urls.length} URLs and ${files.length} files`,
  }));

const good = (
  parts: Part[],
  why: string,
  boundary = BOUNDARY,
  contentType = `multipart/form-data; boundary=${boundary}`,
  expect: Expectation = "reject",
): Form => ({ contentType, body: encodeForm(parts, boundary), expect, why });

export const garbageForm: fc.Arbitrary<Form> = fc.oneof(
  fc.constant(good([{ name: "knowledge_base_texts", content: "[]" }], "no name field")),
  fc.constant(good([{ name: "name", content: "" }], "an empty name")),
  fc.constant(good([{ name: "name", content: "x".repeat(513) }], "a name over 512 characters")),
  fc.constant(
    good(
      [
        { name: "name", content: "a" },
        { name: "name", content: "b" },
      ],
      "the name field twice",
    ),
  ),
  fc.constant(
    good(
      [
        { name: "name", content: "a" },
        { name: "knowledge_base_texts", content: "{not json" },
      ],
      "texts that are not JSON",
    ),
  ),
  fc.constant(
    good(
      [
        { name: "name", content: "a" },
        { name: "knowledge_base_texts", content: '{"a":1}' },
      ],
      "texts that are not an array",
    ),
  ),
  fc.constant(
    good(
      [
        { name: "name", content: "a" },
        { name: "knowledge_base_texts", content: "[1, null, {}]" },
      ],
      "texts of the wrong kinds",
    ),
  ),
  fc.constant(
    good(
      [
        { name: "name", content: "a" },
        { name: "knowledge_base_urls", content: '["javascript:alert(1)", "ftp://x"]' },
      ],
      "URLs that are not http",
    ),
  ),
  fc.constant(
    good(
      [
        { name: "name", content: "a" },
        { name: "other_files", filename: "a.txt", content: "hi" },
      ],
      "a file under the wrong field",
    ),
  ),
  fc.constant(
    good(
      [
        { name: "name", content: "a" },
        { name: "knowledge_base_files", filename: "run.exe", content: "MZ" },
      ],
      "a file of a refused type",
    ),
  ),
  fc.constant(
    good(
      [
        { name: "name", content: "a" },
        { name: "knowledge_base_files", filename: "fake.pdf", content: "not a pdf" },
      ],
      "a file whose content lies about its type",
    ),
  ),
  fc.constant(
    good(
      [
        { name: "name", content: "a" },
        { name: "knowledge_base_files", filename: "", content: "x" },
      ],
      "a file without a name",
    ),
  ),
  fc.constant(
    good(
      [
        { name: "name", content: "a" },
        { name: "knowledge_base_files", filename: "bin.txt", content: Buffer.from([0, 1, 2, 255]) },
      ],
      "binary content in a text file",
    ),
  ),
  fc.constant(
    good(
      [
        { name: "__proto__", content: "x" },
        { name: "name", content: "a" },
      ],
      "an extra field named __proto__",
      BOUNDARY,
      undefined,
      "any",
    ),
  ),
  fc.constant(
    good(
      [
        { name: "constructor", content: "x" },
        { name: "name", content: "a" },
      ],
      "an extra field named constructor",
      BOUNDARY,
      undefined,
      "any",
    ),
  ),
  fc.constant(good([{ name: "name", content: "a" }], "no boundary parameter", BOUNDARY, "multipart/form-data")),
  fc.constant(
    good(
      [{ name: "name", content: "a" }],
      "a boundary that does not match",
      BOUNDARY,
      "multipart/form-data; boundary=other",
    ),
  ),
  fc.constant(good([], "no parts at all")),
  fc.constant<Form>({
    contentType: `multipart/form-data; boundary=${BOUNDARY}`,
    body: Buffer.from(""),
    expect: "reject",
    why: "an empty body",
  }),
  fc.integer({ min: 1, max: 60 }).map((n) =>
    good(
      Array.from({ length: n * 3 }, (_, i) => ({ name: `f${i}`, content: "x" })),
      `${n * 3} fields`,
      BOUNDARY,
      undefined,
      n * 3 > 50 ? "reject" : "any",
    ),
  ),
  fc
    .integer({ min: 21, max: 30 })
    .map((n) => good([{ name: "name", content: "a" }, ...Array.from({ length: n }, () => FILES[0])], `${n} files`)),
  fc.tuple(fc.constantFrom(...FILES), fc.nat()).map(([file, cut]): Form => {
    const full = encodeForm([{ name: "name", content: "a" }, file]);
    return {
      contentType: `multipart/form-data; boundary=${BOUNDARY}`,
      body: full.subarray(0, 10 + (cut % (full.length - 10))),
      expect: "reject",
      why: "a form cut short",
    };
  }),
  fc.uint8Array({ maxLength: 300 }).map(
    (bytes): Form => ({
      contentType: `multipart/form-data; boundary=${BOUNDARY}`,
      body: bytes,
      expect: "reject",
      why: "random bytes as a form",
    }),
  ),
  fc.stringMatching(/^[ -~]{0,80}$/).map(
    (s): Form => ({
      contentType: `multipart/form-data; boundary=${s}`,
      body: encodeForm([{ name: "name", content: "a" }]),
      expect: "any",
      why: "a hostile boundary",
    }),
  ),
);

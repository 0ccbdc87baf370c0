/**
 * E9's text fields however a client sends them, through the standalone server and through the MSW
 * door. The reference says knowledge_base_texts and knowledge_base_urls are form fields holding JSON
 * arrays; a generated client may wrap the value in a Blob instead (orval does for a field with an
 * encoding contentType or a contentMediaType), which FormData sends as a part with a filename
 * ("blob") and the Blob's type. Such a part is the field when its type is text/plain or
 * application/json; the reference's validation messages still answer real mistakes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_FIELD_BYTES, MAX_FILES } from "../../core/uploads.js";
import { type UploadDoor, uploadDoors } from "./upload-doors.js";

const TEXTS = JSON.stringify(["Öffnungszeiten: 9 bis 17 Uhr ✓", { title: "Returns", text: "30 days." }]);
const URLS = JSON.stringify(["https://example.com/faq"]);
const STORED = [
  { type: "text", content: "Öffnungszeiten: 9 bis 17 Uhr ✓" },
  { type: "text", content: "Returns\n\n30 days." },
  { type: "url", content: "https://example.com/faq" },
];

const doors = uploadDoors("kb-text-parts.test");

type Value = string | { blob: string | Uint8Array; type: string; filename?: string };

function form(fields: [string, Value][], files: [string, string][] = []): FormData {
  const data = new FormData();
  for (const [name, value] of fields) {
    if (typeof value === "string") data.append(name, value);
    else data.append(name, new Blob([value.blob as BlobPart], { type: value.type }), value.filename);
  }
  for (const [filename, content] of files)
    data.append("knowledge_base_files", new Blob([content], { type: "text/plain" }), filename);
  return data;
}

const blob = (text: string, type: string): Value => ({ blob: text, type });

describe.each(doors)("E9 text fields through $name", ({ open }) => {
  let door: UploadDoor;
  beforeAll(async () => void (door = await open()));
  afterAll(async () => door?.close());

  async function create(body: FormData): Promise<{ status: number; json: any }> {
    const res = await fetch(`${door.base}/v1/knowledge-bases`, {
      method: "POST",
      headers: { "X-API-Key": door.apiKey },
      body,
    });
    return { status: res.status, json: await res.json() };
  }
  const sources = (json: any) => json.files.map(({ type, content }: any) => ({ type, content }));

  it.each([
    ["plain form fields (curl -F, a browser form, @hey-api/openapi-ts)", TEXTS, URLS],
    [
      "Blobs of type application/json (orval, encoding contentType)",
      blob(TEXTS, "application/json"),
      blob(URLS, "application/json"),
    ],
    ["Blobs of type text/plain;charset=utf-8", blob(TEXTS, "text/plain;charset=utf-8"), blob(URLS, "text/plain")],
    [
      "Blobs typed as a list (orval given `text/plain, application/json`)",
      blob(TEXTS, "text/plain, application/json"),
      blob(URLS, "text/plain, application/json"),
    ],
    [
      "Files of their own, named and typed (texts.json, application/json)",
      { blob: TEXTS, type: "application/json", filename: "texts.json" },
      { blob: URLS, type: "application/json; charset=utf-8", filename: "urls.json" },
    ],
  ] as [string, Value, Value][])("stores texts and URLs sent as %s", async (_how, texts, urls) => {
    const res = await create(
      form([
        ["name", "Support FAQ"],
        ["knowledge_base_texts", texts],
        ["knowledge_base_urls", urls],
      ]),
    );
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect(sources(res.json)).toEqual(STORED);
  });

  it("takes the name as a text/plain Blob too", async () => {
    const res = await create(form([["name", blob("Price list", "text/plain")]]));
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect(res.json.name).toBe("Price list");
  });

  it("counts only files against the 20 files: 20 files and two text Blobs are accepted", async () => {
    const files = Array.from({ length: MAX_FILES }, (_, i) => [`f${i}.txt`, `file ${i}`] as [string, string]);
    const res = await create(
      form(
        [
          ["name", "Many"],
          ["knowledge_base_texts", blob(TEXTS, "application/json")],
          ["knowledge_base_urls", blob(URLS, "application/json")],
        ],
        files,
      ),
    );
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect(res.json.files).toHaveLength(STORED.length + MAX_FILES);
  });

  const refused: [string, FormData, number, Record<string, string>][] = [
    [
      "texts in a Blob that is not a JSON array (the reference's message)",
      form([
        ["name", "x"],
        ["knowledge_base_texts", blob('{"title": "Returns"}', "application/json")],
      ]),
      400,
      { knowledge_base_texts: "must be a JSON array string" },
    ],
    [
      "URLs in a Blob holding something that is not a URL",
      form([
        ["name", "x"],
        ["knowledge_base_urls", blob('["ftp://example.com"]', "application/json")],
      ]),
      400,
      { "knowledge_base_urls[0]": "must be an http or https URL string" },
    ],
    [
      "a PDF under knowledge_base_texts",
      form([
        ["name", "x"],
        ["knowledge_base_texts", { blob: "%PDF-1.7", type: "application/pdf", filename: "texts.pdf" }],
      ]),
      400,
      { knowledge_base_texts: "is not a file field: files go under knowledge_base_files" },
    ],
    [
      "a Blob of type application/octet-stream under knowledge_base_urls",
      form([
        ["name", "x"],
        ["knowledge_base_urls", blob(URLS, "application/octet-stream")],
      ]),
      400,
      { knowledge_base_urls: "is not a file field: files go under knowledge_base_files" },
    ],
    [
      "texts sent twice, once as a field and once as a Blob",
      form([
        ["name", "x"],
        ["knowledge_base_texts", TEXTS],
        ["knowledge_base_texts", blob(TEXTS, "application/json")],
      ]),
      400,
      { knowledge_base_texts: "must be sent once" },
    ],
    [
      "a texts Blob over the 1 MB a field may hold",
      form([
        ["name", "x"],
        ["knowledge_base_texts", blob(`["${"t".repeat(MAX_FIELD_BYTES)}"]`, "application/json")],
      ]),
      400,
      { knowledge_base_texts: `must be at most ${MAX_FIELD_BYTES} bytes` },
    ],
    [
      "a Blob under a field the form does not have",
      form([
        ["name", "x"],
        ["notes", blob("[]", "application/json")],
      ]),
      400,
      { notes: "is not a file field: files go under knowledge_base_files" },
    ],
  ];

  it.each(refused)("refuses %s", async (_what, body, status, validationErrors) => {
    const res = await create(body);
    expect(res.status, JSON.stringify(res.json)).toBe(status);
    expect(res.json.validationErrors).toEqual(validationErrors);
  });
});

/**
 * `--spec FILE` (and `startMock({ spec: FILE })`): another OpenAPI document read from a YAML or JSON
 * file. `$ref`s to other local files are bundled into the one document (json-schema-ref-parser, with
 * nothing fetched over the network); what it cannot resolve is one clear error naming the file.
 *
 * json-schema-ref-parser is an optional peer dependency of the kit, as Express is: a document in one
 * file (the usual case) needs nothing more, and an app that installs the kit does not get it (nor the
 * type packages it pulls in) unless it serves a document split over files.
 */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { parseDocumentText } from "../core/document-text.js";

/** Whether any `$ref` of the document points outside it (another file). */
function refersOutside(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(refersOutside);
  if (!node || typeof node !== "object") return false;
  return Object.entries(node).some(
    ([key, value]) => (key === "$ref" && typeof value === "string" && !value.startsWith("#")) || refersOutside(value),
  );
}

/** The document in `file`, with the local files it refers to bundled in. Not normalised or checked yet. */
export async function readSpecFile(file: string): Promise<object> {
  const path = resolve(file);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new Error(
      `--spec ${file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  const document = parseDocumentText(text, `--spec ${file}`);
  if (!document || typeof document !== "object") throw new Error(`--spec ${file} is not an OpenAPI document`);
  if (!refersOutside(document)) return document;
  const bundler = await loadBundler(file);
  try {
    return await bundler.bundle(path, document, {
      resolve: { http: false, external: true },
      dereference: { circular: true },
    });
  } catch (error) {
    throw new Error(`--spec ${file} refers to a file that cannot be bundled: ${(error as Error).message}`);
  }
}

type Bundler = typeof import("@apidevtools/json-schema-ref-parser").default;

/** The bundler, from the app's own node_modules; one line saying how to get it when it is not there. */
async function loadBundler(file: string): Promise<Bundler> {
  try {
    return (await import("@apidevtools/json-schema-ref-parser")).default;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ERR_MODULE_NOT_FOUND") throw error;
    throw new Error(
      `--spec ${file} refers to other files: bundling them needs @apidevtools/json-schema-ref-parser, an optional peer dependency of the kit (npm install @apidevtools/json-schema-ref-parser), or give one bundled file`,
    );
  }
}

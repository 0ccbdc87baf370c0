/**
 * What the public-spec tests share: the documents' paths, the parsed documents, a judge of an answer
 * against the document's own response schema (ajv, as the kit judges its own), and fetch helpers that
 * send a credential the way a user of Prism or Microcks would (a header, a bearer token, basic auth).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { createOpenApiAjv } from "../../core/openapi-ajv.js";

export const PETSTORE = fileURLToPath(new URL("./petstore/openapi.yaml", import.meta.url));
export const MUSEUM = fileURLToPath(new URL("./museum/openapi.yaml", import.meta.url));

export type Document = Record<string, any>;

export function loadDocument(file: string): Document {
  return parse(readFileSync(file, "utf8")) as Document;
}

/** The path of the document's first server URL: where the kit serves it. */
export function basePath(doc: Document): string {
  return new URL(doc.servers[0].url).pathname.replace(/\/$/, "");
}

/**
 * check(path, method, status, body): the ajv errors of body against the document's response schema
 * for that operation and status (application/json unless said), [] when it passes. The whole document
 * is added under its own id so that its #/components refs resolve; OpenAPI keywords ajv does not know
 * (example, xml) are ignored (strict off).
 */
export function responseJudge(doc: Document) {
  const ajv = createOpenApiAjv();
  const id = "public-spec.json";
  ajv.addSchema(doc, id);
  const escape = (part: string) => part.replaceAll("~", "~0").replaceAll("/", "~1");
  return (path: string, method: string, status: number, body: unknown, mediaType = "application/json") => {
    const responses = ["paths", path, method, "responses"];
    const response = doc.paths[path]?.[method]?.responses?.[String(status)];
    if (!response) throw new Error(`${method} ${path} documents no ${status}`);
    // A response by reference (#/components/responses/NotFound): its content is under that name.
    const at = response.$ref
      ? (response.$ref as string).replace(/^#\//, "").split("/")
      : [...responses, String(status)];
    const pointer = [
      ...at.map((part) => (response.$ref ? part : escape(part))),
      "content",
      escape(mediaType),
      "schema",
    ];
    const validate = ajv.getSchema(`${id}#/${pointer.join("/")}`);
    if (!validate) throw new Error(`${method} ${path} documents no ${mediaType} body for ${status}`);
    return validate(body) ? [] : validate.errors!;
  };
}

export interface Client {
  /** fetch under the base path, with this client's credential headers (none for `anonymous`). */
  (path: string, init?: RequestInit): Promise<Response>;
  /** The same request with JSON in and the answer's status, headers and parsed body out. */
  json(path: string, method?: string, body?: unknown): Promise<Answer>;
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

export function client(root: string, headers: Record<string, string> = {}): Client {
  const call = (path: string, init: RequestInit = {}) =>
    fetch(`${root}${path}`, { ...init, headers: { ...headers, ...(init.headers as Record<string, string>) } });
  const json = async (path: string, method = "GET", body?: unknown): Promise<Answer> => {
    const response = await call(path, {
      method,
      ...(body !== undefined && { body: JSON.stringify(body), headers: { "Content-Type": "application/json" } }),
    });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, text, body: parsed };
  };
  return Object.assign(call, { json });
}

export const basic = (user: string, password: string) => ({
  Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`,
});
export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

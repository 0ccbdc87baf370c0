/**
 * Request bodies as the core judges them: media types, and JSON parsed the way Express's body-parser
 * did (strict: only an object or an array at the top; an empty body reads as {}).
 */
import { ApiError } from "./errors.js";

/** `application/json; charset=utf-8` -> { type: "application/json", charset: "utf-8" }. */
export function mediaType(header: string | string[] | undefined): { type: string; charset?: string } {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return { type: "" };
  const [type, ...params] = value.split(";");
  const charset = params.map((p) => p.trim().split("=")).find(([name]) => name.toLowerCase() === "charset")?.[1];
  return { type: type.trim().toLowerCase(), charset: charset?.replace(/^"|"$/g, "").toLowerCase() };
}

export const isJsonType = (type: string) =>
  type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"));

export const unsupportedEncoding = () => new ApiError(400, "Unsupported request body encoding or charset");
export const bodyTooLarge = (limit: number) => new ApiError(413, `Request body exceeds the ${limit} byte limit`);
export const malformedCompression = () => new ApiError(400, "Malformed compressed request body");

/** A JSON body's charset must be UTF-8 (or unstated): the doors decode UTF-8 only. */
export function checkJsonCharset(charset: string | undefined): void {
  if (charset !== undefined && charset !== "utf-8" && charset !== "utf8") throw unsupportedEncoding();
}

export type ContentCoding = "identity" | "gzip" | "deflate" | "br";

/** The body's Content-Encoding as one of the codings the doors inflate; 400 for any other. */
export function contentCoding(header: string | string[] | undefined): ContentCoding {
  const value = String((Array.isArray(header) ? header[0] : header) ?? "identity")
    .trim()
    .toLowerCase();
  switch (value) {
    case "identity":
    case "":
      return "identity";
    case "gzip":
    case "x-gzip":
      return "gzip";
    case "deflate":
    case "br":
      return value;
    default:
      throw unsupportedEncoding();
  }
}

export function parseJsonText(text: string): unknown {
  // body-parser's special case: an empty body is a common client mistake and reads as {}.
  if (text.length === 0) return {};
  const first = /^[\x20\x09\x0a\x0d]*(.)/.exec(text)?.[1];
  if (first !== "{" && first !== "[") throw new ApiError(400, "Malformed JSON in request body");
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(400, "Malformed JSON in request body");
  }
}

/**
 * An OpenAPI document given as text (`createMockHandlers({ spec })` with a file's contents, `--spec`'s
 * file): JSON when it starts like JSON, else YAML. Plain JavaScript (the `yaml` package): it runs in a
 * browser too; the MSW door loads it only when given text.
 */
import { parse } from "yaml";

/** The parsed document; throws an Error naming `where` and the line of a syntax error. */
export function parseDocumentText(text: string, where = "the document"): unknown {
  const trimmed = text.replace(/^\uFEFF/, "").trimStart();
  try {
    return trimmed.startsWith("{") ? JSON.parse(trimmed) : parse(trimmed, { maxAliasCount: 1000 });
  } catch (error) {
    throw new Error(`${where} is neither JSON nor YAML: ${(error as Error).message.split("\n")[0]}`);
  }
}

/**
 * The spec author's walk-through in spec/README.md ("Adding an operation"), applied to a copy of the
 * repository: its YAML blocks are the edits, each naming on its first line where it goes,
 *
 *   # spec/paths/contacts.yaml (new file)      the block is the whole file
 *   # spec/openapi.yaml, under paths:           the block's lines end that top-level section
 *
 * so the tests that follow the walk-through (scaffold, spec-leads) run the docs as written.
 */
import { readFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { extractBlocks } from "../docs-code-helpers.js";
import { ROOT } from "./throwaway-repo.js";

export interface SpecEdit {
  file: string;
  /** undefined: a new file; else the top-level key of the section the lines go at the end of. */
  under?: string;
  text: string;
}

const HEADER = /^# (spec\/\S+\.yaml)(?: \(new file\)|, under (\w+):)\s*$/;

/** The edits of the walk-through, in the order the guide gives them. */
export function walkthroughEdits(guide = "spec/README.md"): SpecEdit[] {
  const blocks = extractBlocks(guide, readFileSync(path.join(ROOT, guide), "utf8"));
  return blocks.flatMap((block) => {
    if (block.lang !== "yaml") return [];
    const [first, ...rest] = block.code.split("\n");
    const header = HEADER.exec(first ?? "");
    if (!header) return [];
    return [{ file: header[1]!, ...(header[2] && { under: header[2] }), text: `${rest.join("\n").trimEnd()}\n` }];
  });
}

/** Applies the edits to the repository copy at `dir`. */
export async function applyEdits(dir: string, edits: SpecEdit[]): Promise<void> {
  for (const edit of edits) {
    const file = path.join(dir, edit.file);
    if (edit.under === undefined) {
      await writeFile(file, edit.text);
      continue;
    }
    const lines = (await readFile(file, "utf8")).split("\n");
    const start = lines.indexOf(`${edit.under}:`);
    if (start < 0) throw new Error(`${edit.file} has no top-level ${edit.under}:`);
    let end = start + 1;
    while (end < lines.length && (lines[end] === "" || /^[\s#]/.test(lines[end]!))) end++;
    // Blank lines at the section's end stay after it.
    while (end > start + 1 && lines[end - 1] === "") end--;
    lines.splice(end, 0, ...edit.text.trimEnd().split("\n"));
    await writeFile(file, lines.join("\n"));
  }
}

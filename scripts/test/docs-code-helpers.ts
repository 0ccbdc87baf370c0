/**
 * The pieces of docs-code.test.ts: find the markdown files, cut them into fenced blocks and links,
 * split shell lines into commands, and type-check the TypeScript blocks in one compiler program
 * with the package's entry points resolved to the sources.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

/** Markdown files that are not checked, and why (they are not the docs' to fix). */
export const NOT_CHECKED: Record<string, string> = {
  "scripts/RELIABILITY.md": "a results record (fuzz and soak figures) with untagged output blocks",
};

/**
 * Records of measurements made at a past commit: their blocks and links are checked, but the file
 * paths they name are those of that commit, so they are not held to today's tree.
 */
export const RECORDS = new Set(["scripts/bench/RESULTS.md", "scripts/bench/profile-notes.md"]);

const SKIPPED_DIRS = new Set(["node_modules", "dist", ".git", ".docs-code", ".state", "reports"]);

/** Every markdown file of the repository, relative to root, sorted (node_modules, dist and dot folders aside). */
export function findMarkdown(root: string, dir = ""): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name) && !entry.name.startsWith(".") && !entry.name.startsWith("dist.")) {
        found.push(...findMarkdown(root, rel));
      }
    } else if (entry.name.endsWith(".md")) found.push(rel);
  }
  return found.sort();
}

export interface Block {
  /** Markdown file, relative to the repository root. */
  file: string;
  /** Line (1-based) of the block's first content line. */
  line: number;
  /** The info string's first word, lower case ("" when none). */
  lang: string;
  code: string;
  /** The reason given by `<!-- docs-code: skip (reason) -->` on the line before the fence. */
  skip?: string;
}

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([^`\s]*)?.*$/;
const SKIP = /^\s*<!--\s*docs-code:\s*skip\s*\((.+)\)\s*-->\s*$/;

/** The fenced code blocks of a markdown text (fences may be indented, as inside list items). */
export function extractBlocks(file: string, text: string): Block[] {
  const lines = text.split("\n");
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (!open) continue;
    const indent = open[1]!.length;
    const fence = open[2]!;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const close = /^\s*(`{3,}|~{3,})\s*$/.exec(lines[j]!);
      if (close && close[1]![0] === fence[0] && close[1]!.length >= fence.length) break;
      const line = lines[j]!;
      const lead = line.length - line.trimStart().length;
      body.push(line.slice(Math.min(lead, indent)));
    }
    const skip = i > 0 ? SKIP.exec(lines[i - 1]!)?.[1] : undefined;
    blocks.push({ file, line: i + 2, lang: (open[3] ?? "").toLowerCase(), code: body.join("\n"), skip });
    i = j;
  }
  return blocks;
}

export interface Link {
  file: string;
  line: number;
  target: string;
}

/** Markdown links and images outside code (fenced blocks and inline code spans). */
export function extractLinks(file: string, text: string): Link[] {
  const links: Link[] = [];
  let inFence: string | undefined;
  text.split("\n").forEach((raw, index) => {
    const fence = /^\s*(`{3,}|~{3,})/.exec(raw);
    if (fence) {
      if (inFence === undefined) inFence = fence[1]!;
      else if (fence[1]![0] === inFence[0] && fence[1]!.length >= inFence.length) inFence = undefined;
      return;
    }
    if (inFence !== undefined) return;
    const line = raw.replace(/`+[^`]*`+/g, "");
    for (const m of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
      links.push({ file, line: index + 1, target: m[1]! });
    const ref = /^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(line);
    if (ref) links.push({ file, line: index + 1, target: ref[1]! });
  });
  return links;
}

/**
 * Repository paths named in inline code outside fenced blocks (`mock-server/test/doors/slow-clients.test.ts`):
 * words with a folder and an extension, no glob or placeholder, not a URL path or a package subpath.
 */
export function extractCodePaths(file: string, text: string): Link[] {
  const paths: Link[] = [];
  let inFence: string | undefined;
  text.split("\n").forEach((line, index) => {
    const fence = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (inFence === undefined) inFence = fence[1]!;
      else if (fence[1]![0] === inFence[0] && fence[1]!.length >= inFence.length) inFence = undefined;
      return;
    }
    if (inFence !== undefined) return;
    for (const m of line.matchAll(/`([^`\s]+)`/g)) {
      const word = m[1]!;
      if (/^[\w.-]+(\/[\w.-]+)+\.[a-z]{1,5}$/.test(word) && !word.startsWith("agent-platform-mock-kit/"))
        paths.push({ file, line: index + 1, target: word });
    }
  });
  return paths;
}

/** GitHub's anchors of a markdown text's headings. */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let inFence = false;
  for (const line of text.split("\n")) {
    if (/^\s*(`{3,}|~{3,})/.test(line)) inFence = !inFence;
    const heading = inFence ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = heading[1]!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** What a relative link points at, or a problem. */
export function checkLink(root: string, link: Link): string | undefined {
  const { target } = link;
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined;
  const [pathPart, anchor] = target.split("#", 2) as [string, string | undefined];
  const from = path.dirname(path.join(root, link.file));
  const resolved = pathPart === "" ? path.join(root, link.file) : path.resolve(from, decodeURI(pathPart));
  if (!resolved.startsWith(root)) return `${target} leaves the repository`;
  if (!existsSync(resolved)) return `${target}: no such file (${path.relative(root, resolved)})`;
  if (anchor && resolved.endsWith(".md") && !headingAnchors(readFileSync(resolved, "utf8")).has(anchor))
    return `${target}: no heading with the anchor #${anchor} in ${path.relative(root, resolved)}`;
  return undefined;
}

export interface Command {
  block: Block;
  /** Line of the markdown file where the command starts. */
  line: number;
  /** Words after leading VAR=value assignments; quotes removed. */
  words: string[];
}

/**
 * The commands of a shell block: continuation lines joined, comments dropped, split on && || | ; &,
 * redirections dropped. In a `console` block only lines starting with `$ ` are commands.
 */
export function shellCommands(block: Block): Command[] {
  const lines = block.code.split("\n");
  const commands: Command[] = [];
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let text = lines[i]!;
    if (block.lang === "console") {
      if (!text.startsWith("$ ")) continue;
      text = text.slice(2);
    }
    while (/\\\s*$/.test(text) && i + 1 < lines.length) text = `${text.replace(/\\\s*$/, " ")}${lines[++i]}`;
    for (const words of splitShell(text)) {
      while (words.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0]!)) words.shift();
      if (words.length > 0) commands.push({ block, line: block.line + start, words });
    }
  }
  return commands;
}

/** A small shell word splitter: quotes, escapes, comments, command separators, redirections. */
export function splitShell(text: string): string[][] {
  const commands: string[][] = [[]];
  let word: string | undefined;
  const end = () => {
    if (word !== undefined) commands[commands.length - 1]!.push(word);
    word = undefined;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "'") {
      const close = text.indexOf("'", i + 1);
      word = (word ?? "") + text.slice(i + 1, close < 0 ? text.length : close);
      i = close < 0 ? text.length : close;
    } else if (c === '"') {
      let value = "";
      for (i++; i < text.length && text[i] !== '"'; i++) value += text[i] === "\\" ? text[++i] : text[i];
      word = (word ?? "") + value;
    } else if (c === "\\") word = (word ?? "") + (text[++i] ?? "");
    else if (c === "#" && word === undefined) break;
    else if (/\s/.test(c)) end();
    else if (c === "&" || c === "|" || c === ";") {
      end();
      if (text[i + 1] === c) i++;
      commands.push([]);
    } else if ((c === ">" || c === "<") && (word === undefined || /^\d$/.test(word))) {
      // A redirection: the operator, and its target word unless glued (2>&1, >/dev/null).
      word = undefined;
      while (text[i + 1] === ">" || text[i + 1] === "&") i++;
      while (/\s/.test(text[i + 1] ?? "")) i++;
      while (i + 1 < text.length && !/[\s;&|]/.test(text[i + 1]!)) i++;
    } else word = (word ?? "") + c;
  }
  end();
  return commands.filter((words) => words.length > 0);
}

export interface TypeProblem {
  block: Block;
  line: number;
  message: string;
}

/**
 * The package's entry points (package.json `exports`), each mapped from its compiled file in dist/
 * to the source it is built from: `./dist/mock-server/index.js` is `mock-server/index.ts`.
 */
export function entrySources(root: string): Record<string, string> {
  const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as {
    name: string;
    exports: Record<string, string | { types?: string; default?: string }>;
  };
  const sources: Record<string, string> = {};
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    const file = typeof target === "string" ? target : (target.default ?? target.types);
    if (!file?.startsWith("./dist/")) continue;
    const source = file.slice("./dist/".length).replace(/\.js$/, ".ts");
    if (existsSync(path.join(root, source))) sources[path.posix.join(pkg.name, subpath)] = source;
  }
  return sources;
}

/** Modules doc examples import that the kit does not install: declared so the kit's side is still checked. */
const STUBS = `
declare module "msw-storybook-addon" {
  export function initialize(options?: { onUnhandledRequest?: "bypass" | "warn" | "error" }): void;
  export const mswLoader: (context: unknown) => Promise<Record<string, unknown>>;
}
`;
export const STUBBED_MODULES = ["msw-storybook-addon"];

/**
 * Writes each block to `<dir>/<n>.ts` (the block's lines first, so line numbers map straight back)
 * and type-checks them all in one program. Problems in the kit's own sources are `tsc`'s business,
 * not this check's: only the blocks' diagnostics count.
 */
export function typecheckBlocks(root: string, dir: string, blocks: Block[]): TypeProblem[] {
  if (blocks.length === 0) return [];
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const toRoot = path.relative(dir, root) || ".";
  const compilerOptions = {
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    lib: ["ES2023", "DOM", "DOM.Iterable"],
    types: ["node", "vite/client"],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    esModuleInterop: true,
    resolveJsonModule: true,
    isolatedModules: true,
    verbatimModuleSyntax: true,
    paths: Object.fromEntries(Object.entries(entrySources(root)).map(([name, file]) => [name, [`${toRoot}/${file}`]])),
  };
  const files = blocks.map((block, n) => {
    const file = path.join(dir, `block-${String(n).padStart(3, "0")}.ts`);
    // A block is a module of its own, whatever it imports.
    writeFileSync(file, `${block.code}\nexport {};\n`);
    return file;
  });
  const stubs = path.join(dir, "stubs.d.ts");
  writeFileSync(stubs, STUBS);
  writeFileSync(
    path.join(dir, "tsconfig.json"),
    `${JSON.stringify({ compilerOptions, files: [...files.map((f) => path.basename(f)), "stubs.d.ts"] }, null, 2)}\n`,
  );
  writeFileSync(
    path.join(dir, "README.txt"),
    "Written by scripts/test/docs-code.test.ts: one file per TypeScript block of the docs. Git-ignored.\n",
  );
  const parsed = ts.convertCompilerOptionsFromJson(compilerOptions, dir);
  if (parsed.errors.length > 0) throw new Error(ts.formatDiagnostics(parsed.errors, formatHost(root)));
  const program = ts.createProgram({ rootNames: [...files, stubs], options: parsed.options });
  const problems: TypeProblem[] = [];
  for (const d of [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()])
    problems.push({ block: blocks[0]!, line: 0, message: ts.flattenDiagnosticMessageText(d.messageText, "\n") });
  files.forEach((file, n) => {
    const source = program.getSourceFile(file);
    if (!source) throw new Error(`${file} is not in the program`);
    for (const d of [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)]) {
      const at = d.start === undefined ? 0 : source.getLineAndCharacterOfPosition(d.start).line;
      const block = blocks[n]!;
      problems.push({
        block,
        line: block.line + at,
        message: `TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`,
      });
    }
  });
  return problems;
}

function formatHost(root: string): ts.FormatDiagnosticsHost {
  return { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => "\n" };
}

/**
 * Every code block of the docs is checked, so the docs cannot rot: README.md and every guide
 * (spec/, mock-server/, mock-server/docs/, conformance/, scripts/ ...; every markdown file of the
 * repository but node_modules, dist and the records in NOT_CHECKED), by the block's language tag:
 * - ts/typescript: type-checked in one program, the package's entry points resolved to the sources;
 * - json: parsed; yaml/yml: parsed;
 * - bash/sh/shell/console: `npm run X` names a script, `npm X` a script or a built-in; the flags of
 *   `npm start --`/`npx agent-platform-mock` pass the mock's option parser, those of
 *   `npm run conformance --`/`npx agent-platform-conformance` the suite's; `curl` lines are sent to a mock
 *   started here (localhost:4010 rewritten to its port) and must exit 0 with a status below 500;
 * - text: not checked. A block with no tag fails.
 * A block may be skipped with `<!-- docs-code: skip (reason) -->` on the line before its fence.
 * Every relative link must point at a file that exists (and at a heading, when it names an anchor), and
 * every repository path named in inline code must exist. DOCS_CODE_VERBOSE=1 prints each curl's status.
 */
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import type { RunningMock } from "../../mock-server/index.js";
import { readConfig } from "../../mock-server/node/config.js";
import {
  type Block,
  type Command,
  checkLink,
  extractBlocks,
  extractCodePaths,
  extractLinks,
  findMarkdown,
  NOT_CHECKED,
  RECORDS,
  STUBBED_MODULES,
  shellCommands,
  typecheckBlocks,
} from "./docs-code-helpers.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const workDir = path.join(root, "scripts/test/.docs-code");
const scripts = Object.keys(JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")).scripts);
const NPM_BUILT_INS = new Set(["ci", "install", "i", "test", "start", "pack", "exec"]);
const SHELL = new Set(["bash", "sh", "shell", "console"]);
const TYPESCRIPT = new Set(["ts", "typescript"]);
const YAML = new Set(["yaml", "yml"]);
const KNOWN = new Set([...SHELL, ...TYPESCRIPT, ...YAML, "json", "text"]);

const files = findMarkdown(root).filter((file) => !(file in NOT_CHECKED));
const guides = files.filter((file) => !RECORDS.has(file));
const texts = new Map(files.map((file) => [file, readFileSync(path.join(root, file), "utf8")]));
const blocks = files.flatMap((file) => extractBlocks(file, texts.get(file)!));
const checked = blocks.filter((b) => !b.skip);
const of = (langs: Set<string>) => checked.filter((b) => langs.has(b.lang));
const where = (b: Block, line = b.line) => `${b.file}:${line}`;

const counts: Record<string, number> = {};
const notChecked = new Map<string, number>();
const count = (kind: string) => (counts[kind] = (counts[kind] ?? 0) + 1);

afterAll(() => {
  const lines = [
    `docs-code: ${files.length} markdown files, ${blocks.length} blocks`,
    `  checked: ${Object.entries(counts)
      .map(([k, n]) => `${k} ${n}`)
      .join(", ")}`,
    `  not checked (other commands): ${[...notChecked].map(([c, n]) => `${c} ${n}`).join(", ") || "none"}`,
    `  skipped blocks: ${blocks.filter((b) => b.skip).length}`,
    ...blocks.filter((b) => b.skip).map((b) => `    ${where(b)} (${b.lang}): ${b.skip}`),
    `  files not checked: ${Object.entries(NOT_CHECKED)
      .map(([f, why]) => `${f} (${why})`)
      .join("; ")}`,
    `  records (blocks and links checked, file paths not: they name a past commit's files): ${[...RECORDS].join(", ")}`,
    `  modules stubbed for the type check (not installed by the kit): ${STUBBED_MODULES.join(", ")}`,
  ];
  console.log(lines.join("\n"));
});

describe("docs: the markdown files", () => {
  it("include the README and every guide", () => {
    for (const f of [
      "README.md",
      "spec/README.md",
      "mock-server/README.md",
      "conformance/README.md",
      "scripts/README.md",
    ])
      expect(files).toContain(f);
    expect(files.filter((f) => f.startsWith("mock-server/docs/")).length).toBeGreaterThan(0);
  });

  it("tag every code block with a language the test knows (text for plain text)", () => {
    const untagged = blocks.filter((b) => !KNOWN.has(b.lang)).map((b) => `${where(b)}: "${b.lang || "(none)"}"`);
    expect(untagged, "blocks without a known language tag").toEqual([]);
    const bareSkips = blocks.filter((b) => b.skip !== undefined && b.skip.trim() === "").map((b) => where(b));
    expect(bareSkips, "skips without a reason").toEqual([]);
  });

  it("link only to files (and headings) that exist", () => {
    const broken = files.flatMap((file) =>
      extractLinks(file, texts.get(file)!).flatMap((link) => {
        const problem = checkLink(root, link);
        if (problem === undefined) return [];
        return [`${link.file}:${link.line}: ${problem}`];
      }),
    );
    counts.links = files.reduce((n, file) => n + extractLinks(file, texts.get(file)!).length, 0);
    expect(broken).toEqual([]);
  });

  it("name only repository files that exist in inline code (relative to the repository or the file)", () => {
    const missing = guides.flatMap((file) =>
      extractCodePaths(file, texts.get(file)!).flatMap((p) => {
        const here = path.join(root, path.dirname(file), p.target);
        return existsSync(path.join(root, p.target)) || existsSync(here) ? [] : [`${p.file}:${p.line}: ${p.target}`];
      }),
    );
    counts["file paths"] = guides.reduce((n, file) => n + extractCodePaths(file, texts.get(file)!).length, 0);
    expect(missing, "files the docs name that are not there (moved?)").toEqual([]);
  });
});

describe("docs: code blocks", () => {
  it("TypeScript blocks type-check against the kit's sources", () => {
    const ts = of(TYPESCRIPT);
    counts.ts = ts.length;
    const problems = typecheckBlocks(root, workDir, ts).map((p) => `${p.block.file}:${p.line}: ${p.message}`);
    expect(problems, "type errors in the docs' TypeScript").toEqual([]);
  }, 180_000);

  it("JSON blocks parse", () => {
    const bad = of(new Set(["json"])).flatMap((b) => {
      count("json");
      try {
        JSON.parse(b.code);
        return [];
      } catch (error) {
        return [`${where(b)}: ${(error as Error).message}`];
      }
    });
    expect(bad).toEqual([]);
  });

  it("YAML blocks parse", () => {
    const bad = of(YAML).flatMap((b) => {
      count("yaml");
      try {
        parseYaml(b.code);
        return [];
      } catch (error) {
        return [`${where(b)}: ${(error as Error).message.split("\n")[0]}`];
      }
    });
    expect(bad).toEqual([]);
  });
});

const commands = of(SHELL).flatMap((b) => shellCommands(b));
const at = (c: Command) => `${c.block.file}:${c.line}: ${c.words.join(" ")}`;

describe("docs: shell commands", () => {
  it("name npm scripts that exist, and flags the mock and the suite accept", async () => {
    const problems: string[] = [];
    for (const c of commands) {
      const [program, ...rest] = c.words;
      if (program === "npm") {
        const sub = rest.find((w) => !w.startsWith("-"));
        const afterSub = rest.slice(rest.indexOf(sub!) + 1);
        const script = sub === "run" || sub === "run-script" ? afterSub.find((w) => !w.startsWith("-")) : sub;
        const dashes = c.words.indexOf("--");
        const args = dashes < 0 ? [] : c.words.slice(dashes + 1);
        if (script === undefined) problems.push(`${at(c)}: no npm command`);
        else if ((sub === "run" || sub === "run-script" || !NPM_BUILT_INS.has(script)) && !scripts.includes(script))
          problems.push(`${at(c)}: no script "${script}" in package.json`);
        else if (script === "start") problems.push(...(await mockFlags(c, args)));
        else if (script === "conformance") problems.push(...(await conformanceFlags(c, args)));
        count(script === "start" || script === "conformance" ? `npm ${script} (flags parsed)` : "npm");
      } else if (program === "npx") {
        const i = rest.findIndex((w) => !w.startsWith("-"));
        const bin = rest[i];
        if (bin === "agent-platform-mock") problems.push(...(await mockFlags(c, rest.slice(i + 1))));
        else if (bin === "agent-platform-conformance") problems.push(...(await conformanceFlags(c, rest.slice(i + 1))));
        else notChecked.set(`npx ${bin}`, (notChecked.get(`npx ${bin}`) ?? 0) + 1);
        if (bin?.startsWith("agent-platform-")) count(`npx ${bin} (flags parsed)`);
      } else if (program !== "curl") notChecked.set(program!, (notChecked.get(program!) ?? 0) + 1);
    }
    expect(problems).toEqual([]);
  });
});

describe("docs: curl lines", () => {
  let mock: RunningMock;

  beforeAll(async () => {
    // Imported here, so that the other checks of the docs run even while the mock does not load.
    const { startMock } = await import("../../mock-server/index.js");
    mock = await startMock({ port: 0, clock: "virtual", log: () => {} });
  });
  afterAll(async () => {
    await mock?.close();
  });

  it("curl lines answer below 500 from a running mock", async () => {
    const problems: string[] = [];
    let lastBlock: Block | undefined;
    for (const c of commands.filter((c) => c.words[0] === "curl")) {
      // Each block starts from the seeded state: no fault rule or record of another block's example.
      if (c.block !== lastBlock) await fetch(`${mock.url}/__mock/reset`, { method: "POST", body: "{}" });
      lastBlock = c.block;
      count("curl");
      const args = c.words.slice(1).map((w) => w.replace(/(?:https?:\/\/)?(?:localhost|127\.0\.0\.1):4010/g, mock.url));
      if (!args.some((a) => a.startsWith(mock.url))) {
        problems.push(`${at(c)}: no localhost:4010 URL to send to the mock`);
        continue;
      }
      const sent = await curl(["-sS", "--max-time", "20", "-o", "/dev/null", "-w", "%{http_code}", ...args]);
      const status = Number(sent.stdout.trim());
      if (process.env.DOCS_CODE_VERBOSE) console.log(`${status} ${at(c)}`);
      if (sent.code !== 0 || !(status > 0 && status < 500))
        problems.push(`${at(c)}: curl exit ${sent.code}, status ${sent.stdout.trim() || "none"} ${sent.stderr.trim()}`);
    }
    expect(problems).toEqual([]);
  }, 120_000);
});

/** The mock's own option parser (`npm start`, the bin): it throws on a flag it does not know. */
async function mockFlags(c: Command, args: string[]): Promise<string[]> {
  if (args[0] === "drift" || args[0] === "coverage") {
    // These commands parse their flags first and answer --help without reading anything.
    const errors: string[] = [];
    const io = { out: () => {}, err: (t: string) => void errors.push(t) };
    const flags = [...args.slice(1), "--help"];
    const code =
      args[0] === "drift"
        ? await (await import("../../conformance/drift/command.js")).driftMain(flags, {}, io)
        : await (await import("../../conformance/coverage/command.js")).coverageMain(flags, {}, io);
    return code === 0 ? [] : [`${c.block.file}:${c.line}: agent-platform-mock ${args[0]}: ${errors.join(" ")}`];
  }
  try {
    readConfig(args, {});
    return [];
  } catch (error) {
    return [`${c.block.file}:${c.line}: npm start / agent-platform-mock: ${(error as Error).message}`];
  }
}

/**
 * The suite's parser is not exported: its `main` is asked with `--help` added, which parses the flags
 * (exit 2 on one it does not know) and answers the usage without running anything (exit 0).
 */
async function conformanceFlags(c: Command, args: string[]): Promise<string[]> {
  const errors: string[] = [];
  const { main: conformanceMain } = await import("../../conformance/cli.js");
  const { code } = await conformanceMain([...args, "--help"], {}, { out: () => {}, err: (t) => errors.push(t) });
  return code === 0 ? [] : [`${c.block.file}:${c.line}: conformance: ${errors.join(" ").split("\n")[0]}`];
}

async function curl(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)("curl", args, { cwd: root });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

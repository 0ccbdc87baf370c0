/**
 * npm run spec:diff -- <git-ref>: the breaking-change check of the spec.
 * Bundles spec/openapi.yaml at <git-ref> and in the working tree, compares them from a client's point
 * of view and prints breaking and non-breaking changes (text, or Markdown for a pull request).
 * Exit 0: nothing breaking (or --allow-breaking); 1: something breaking; 2: usage error.
 * With --traffic FILE... (HAR files, the journal's JSON) it also says which recorded exchanges each
 * breaking change breaks, and then fails only when one does: the blast radius.
 * The pieces live in scripts/spec-diff/: load (git + bundle), compare, schema-diff, docs-diff, report;
 * for traffic: conformance/recorded/traffic-file (the kit's reader of HAR and journal files), then
 * traffic-match, blast-radius (with traffic-fields and traffic-values), traffic-report, traffic-html.
 */
import { writeFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { blastRadius } from "./spec-diff/blast-radius.js";
import { compareDocuments } from "./spec-diff/compare.js";
import { bundleAtRef, bundleWorkingTree, findSpecAtRef, loadFile, UsageError } from "./spec-diff/load.js";
import { breakingCount, renderMarkdown, renderText } from "./spec-diff/report.js";
import { renderHtml } from "./spec-diff/traffic-html.js";
import { matchTraffic } from "./spec-diff/traffic-match.js";
import { readTraffic, TrafficFileError } from "../conformance/recorded/traffic-file.js";
import {
  buildReport,
  hitting,
  renderBlastMarkdown,
  renderBlastText,
  type TrafficInput,
} from "./spec-diff/traffic-report.js";

const USAGE = `Usage: npm run spec:diff -- <git-ref> [options]
       npm run spec:diff -- --base FILE [--head FILE] [options]
       npm run spec:diff -- <git-ref> --traffic FILE... [--json FILE] [--html FILE]

Compares the bundled spec at <git-ref> (or the bundled JSON in --base FILE) with the working tree's
spec/ (or --head FILE) and reports changes that break clients. With --traffic, also which recorded
exchanges each breaking change breaks (its blast radius).

Options:
  --base FILE         bundled JSON document to compare from, instead of a git ref
  --head FILE         bundled JSON document to compare to, instead of the working tree
  --spec PATH         the document to bundle (default spec/openapi.yaml; e.g. spec/mock-control.yaml)
  --format FORMAT     text (default) or markdown, on standard output
  --markdown FILE     also write the Markdown report to FILE (for a pull request comment)
  --traffic FILE...   recorded traffic: HAR files (GET /__mock/requests.har, a browser's devtools export)
                      or the journal's JSON (GET /__mock/requests); give the git ref before it
  --json FILE         also write the report as JSON (shape in scripts/README.md)
  --html FILE         also write the report as one self-contained HTML page
  --allow-breaking    exit 0 even when something is breaking (still reported)
  -h, --help          this text

Exit codes: 0 no breaking change, 1 breaking changes, 2 usage error or the spec could not be read.
With --traffic: 0 no breaking change hits recorded traffic, 1 one does, 2 usage error or unreadable traffic.`;

/** `--traffic a.har b.har`: the values that follow --traffic, up to the next option, are its files. */
function trafficFiles(tokens: ReturnType<typeof parseArgs>["tokens"] = []): { files: string[]; positionals: string[] } {
  const files: string[] = [];
  const positionals: string[] = [];
  let inTraffic = false;
  for (const token of tokens) {
    if (token.kind === "option") {
      inTraffic = token.name === "traffic";
      if (inTraffic && token.value !== undefined) files.push(token.value);
    } else if (token.kind === "positional") (inTraffic ? files : positionals).push(token.value);
    else inTraffic = false;
  }
  return { files, positionals };
}

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      tokens: true,
      options: {
        base: { type: "string" },
        head: { type: "string" },
        spec: { type: "string", default: "spec/openapi.yaml" },
        format: { type: "string", default: "text" },
        markdown: { type: "string" },
        traffic: { type: "string", multiple: true },
        json: { type: "string" },
        html: { type: "string" },
        "allow-breaking": { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values } = parsed;
  const { files: traffic, positionals } = trafficFiles(parsed.tokens);
  if (values.traffic && !traffic.length) throw new UsageError("--traffic expects one or more files");
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (positionals.length > 1) throw new UsageError(`one git ref expected, got ${positionals.join(" ")}`);
  const ref = positionals[0];
  if (ref !== undefined && values.base) throw new UsageError("give a git ref or --base FILE, not both");
  if (ref === undefined && !values.base)
    throw new UsageError("a git ref (e.g. HEAD~1 or origin/main) or --base FILE is required");
  if (values.format !== "text" && values.format !== "markdown")
    throw new UsageError(`--format is text or markdown, not ${values.format}`);

  const dir = process.cwd();
  const at = ref !== undefined ? await findSpecAtRef(dir, ref, values.spec) : undefined;
  const [base, head] = await Promise.all([
    at ? bundleAtRef(dir, at, values.spec) : loadFile(values.base!),
    values.head ? loadFile(values.head) : bundleWorkingTree(dir, values.spec),
  ]);
  const result = compareDocuments(base, head);
  const title = { base: ref ?? values.base!, head: values.head ?? "working tree", spec: values.spec };
  let recorded: TrafficInput | undefined;
  if (traffic.length) {
    const { files, exchanges } = await readTraffic(traffic).catch((error: unknown) => {
      throw error instanceof TrafficFileError ? new UsageError(error.message) : error;
    });
    const match = matchTraffic(base, exchanges);
    recorded = { files, match, radius: blastRadius(base, head, result.changes, match) };
  }
  const report = buildReport(result, title, recorded);
  const markdown = () => renderMarkdown(result, title) + renderBlastMarkdown(report);
  process.stdout.write(values.format === "markdown" ? markdown() : renderText(result, title) + renderBlastText(report));
  if (values.markdown) await writeFile(values.markdown, markdown());
  if (values.json) await writeFile(values.json, `${JSON.stringify(report, null, 2)}\n`);
  if (values.html) await writeFile(values.html, renderHtml(report));

  const breaking = breakingCount(result);
  if (recorded) return trafficVerdict(breaking, hitting(report), values["allow-breaking"]!);
  if (breaking === 0) return 0;
  if (values["allow-breaking"]) {
    console.error(`spec:diff: ${breaking} breaking change(s), allowed by --allow-breaking`);
    return 0;
  }
  console.error(`spec:diff: ${breaking} breaking change(s); pass --allow-breaking to accept them`);
  return 1;
}

/** With --traffic, only a breaking change that recorded traffic meets fails the run. */
function trafficVerdict(breaking: number, hit: number, allowed: boolean): number {
  if (hit === 0) {
    if (breaking) console.error(`spec:diff: ${breaking} breaking change(s), none hit by recorded traffic`);
    return 0;
  }
  if (allowed) {
    console.error(`spec:diff: ${hit} breaking change(s) hit recorded traffic, allowed by --allow-breaking`);
    return 0;
  }
  console.error(`spec:diff: ${hit} breaking change(s) hit recorded traffic; pass --allow-breaking to accept them`);
  return 1;
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  const message = error instanceof Error ? error.message.split("\n")[0] : String(error);
  console.error(`spec:diff: ${message}`);
  if (!(error instanceof UsageError))
    console.error("spec:diff: (the spec could not be bundled or compared; run npm run lint:spec)");
  if (error instanceof UsageError && /required|expected|not both|--format|Unknown option|unexpected/i.test(message))
    console.error("Run npm run spec:diff -- --help for usage.");
  process.exitCode = 2;
}

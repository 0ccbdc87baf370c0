/**
 * npm run spec:diff -- <git-ref>: the breaking-change check of the spec.
 * Bundles spec/openapi.yaml at <git-ref> and in the working tree, compares them from a client's point
 * of view and prints breaking and non-breaking changes (text, or Markdown for a pull request).
 * Exit 0: nothing breaking (or --allow-breaking); 1: something breaking; 2: usage error.
 * The pieces live in scripts/spec-diff/: load (git + bundle), compare, schema-diff, docs-diff, report.
 */
import { writeFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { compareDocuments } from "./spec-diff/compare.js";
import { bundleAtRef, bundleWorkingTree, findSpecAtRef, loadFile, UsageError } from "./spec-diff/load.js";
import { breakingCount, renderMarkdown, renderText } from "./spec-diff/report.js";

const USAGE = `Usage: npm run spec:diff -- <git-ref> [options]
       npm run spec:diff -- --base FILE [--head FILE] [options]

Compares the bundled spec at <git-ref> (or the bundled JSON in --base FILE) with the working tree's
spec/ (or --head FILE) and reports changes that break clients.

Options:
  --base FILE         bundled JSON document to compare from, instead of a git ref
  --head FILE         bundled JSON document to compare to, instead of the working tree
  --spec PATH         the document to bundle (default spec/openapi.yaml; e.g. spec/mock-control.yaml)
  --format FORMAT     text (default) or markdown, on standard output
  --markdown FILE     also write the Markdown report to FILE (for a pull request comment)
  --allow-breaking    exit 0 even when something is breaking (still reported)
  -h, --help          this text

Exit codes: 0 no breaking change, 1 breaking changes, 2 usage error or the spec could not be read.`;

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        base: { type: "string" },
        head: { type: "string" },
        spec: { type: "string", default: "spec/openapi.yaml" },
        format: { type: "string", default: "text" },
        markdown: { type: "string" },
        "allow-breaking": { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
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
  process.stdout.write(values.format === "markdown" ? renderMarkdown(result, title) : renderText(result, title));
  if (values.markdown) await writeFile(values.markdown, renderMarkdown(result, title));

  const breaking = breakingCount(result);
  if (breaking === 0) return 0;
  if (values["allow-breaking"]) {
    console.error(`spec:diff: ${breaking} breaking change(s), allowed by --allow-breaking`);
    return 0;
  }
  console.error(`spec:diff: ${breaking} breaking change(s); pass --allow-breaking to accept them`);
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

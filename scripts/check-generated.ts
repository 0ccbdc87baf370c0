/** npm run check:generated: regenerates into a temporary folder and fails when generated/ differs. */
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { generate, root } from "./generate.js";

const fresh = await mkdtemp(path.join(tmpdir(), "generated-"));
try {
  const files = await generate(fresh);
  const committed = path.join(root, "generated");
  const present = new Set(await readdir(committed).catch(() => [] as string[]));
  const stale: string[] = [];
  for (const file of files) {
    const want = await readFile(path.join(fresh, file), "utf8");
    const have = present.has(file) ? await readFile(path.join(committed, file), "utf8") : undefined;
    if (have !== want) stale.push(have === undefined ? `${file} (missing)` : file);
    present.delete(file);
  }
  for (const extra of present) stale.push(`${extra} (not produced by the generator)`);
  if (stale.length > 0) {
    console.error(`generated/ is stale: ${stale.join(", ")}. Run npm run generate and commit the result.`);
    process.exitCode = 1;
  } else {
    console.log(`generated/ is up to date (${files.length} files).`);
  }
} finally {
  await rm(fresh, { recursive: true, force: true });
}

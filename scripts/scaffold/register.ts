/**
 * Registers a scaffolded handler table in mock-server/routes/index.ts: its import after the last
 * import of a handler file, and its spread last in the `handlers` table. Biome formats the file after.
 */

export function registerHandlers(index: string, exportName: string, file: string): string {
  const lines = index.split("\n");
  const lastImport = lines.findLastIndex((line) => /^import .* from "\.\/[^"]+\.js";$/.test(line));
  const table = lines.findIndex((line) => /^export const handlers\b/.test(line));
  const close = lines.findIndex((line, i) => i > table && /^};\s*$/.test(line));
  if (lastImport < 0 || table < 0 || close < 0)
    throw new Error("mock-server/routes/index.ts: no handler imports or no `export const handlers = { ... };` found");
  lines.splice(close, 0, `  ...${exportName},`);
  lines.splice(lastImport + 1, 0, `import { ${exportName} } from "./${file}.js";`);
  return lines.join("\n");
}

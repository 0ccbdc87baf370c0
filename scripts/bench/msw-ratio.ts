/**
 * npx tsx scripts/bench/msw-ratio.ts [seconds] [--rounds N] [--connections C] [--handlers FILE] [--json FILE]
 *
 * Part 2 alone, for work on the MSW door: the door and bare msw handlers serving its bytes, each
 * request `rounds` times (default 3) alternating door and bare, `seconds` each (default 3), and the
 * door / bare ratio of each (medians of the rounds). `npm run bench` runs the same with one round.
 * --handlers: the door from another handlers module (say, the handlers.ts of before a change, copied
 * beside it in mock-server/msw/ so that its imports resolve), to set its ratio beside this one's.
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { formatRatio, measureMswDoor } from "./msw.js";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    rounds: { type: "string", default: "3" },
    connections: { type: "string", default: "8" },
    json: { type: "string" },
    handlers: { type: "string" },
  },
});
const durationSec = Number(positionals[0] ?? 3);
const rows = await measureMswDoor(
  { connections: Number(values.connections), durationSec, warmupSec: 1 },
  (line) => console.log(line),
  values.handlers,
  Number(values.rounds),
);
console.log("\ndoor / bare (medians of the rounds):");
for (const row of rows) console.log(`  ${row.scenario.padEnd(40)} ${formatRatio(row.ratio)}`);
if (values.json) writeFileSync(values.json, `${JSON.stringify(rows, null, 2)}\n`);

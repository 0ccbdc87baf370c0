#!/usr/bin/env node
/**
 * The agent-platform-mock command (package.json "bin"). It lives with the suite because two of its
 * commands are the suite's: `agent-platform-mock drift ...` reads the upstream door's drift findings and
 * writes the suite's reports (conformance/drift/command.ts); `coverage ...` says which response variants a
 * workspace has received, from the mock or a saved HAR or journal (conformance/coverage/command.ts). Any
 * other argv runs the mock exactly as `npm start` does (mock-server/main.ts, which starts on import), so
 * the mock's folder imports nothing of this one. Each is loaded only when asked for, so serving loads
 * nothing of the suite. A cluster worker (--workers) runs this file again with the same argv, so it lands
 * on the server too.
 */
const COMMANDS: Record<string, () => Promise<(argv: string[]) => Promise<number>>> = {
  drift: async () => (await import("./drift/command.js")).driftMain,
  coverage: async () => (await import("./coverage/command.js")).coverageMain,
};

const argv = process.argv.slice(2);
const command = argv[0] === undefined ? undefined : COMMANDS[argv[0]];

if (command) {
  const run = await command();
  const code = await run(argv.slice(1)).catch((error: unknown) => {
    process.stderr.write(`agent-platform-mock ${argv[0]}: cannot run: ${(error as Error).stack ?? error}\n`);
    return 2;
  });
  process.exit(code);
} else {
  await import("../mock-server/main.js");
  // With --help, main() printed the server's usage synchronously on import (bad flags exit there): the commands go below it.
  if (argv.includes("--help"))
    console.log(
      "Commands:\n  agent-platform-mock drift --url URL [...]      drift findings of the upstream door, as the suite's reports (drift --help)\n  agent-platform-mock coverage --url URL [...]   the response variants a workspace has received, and how to get the rest (coverage --help)\n",
    );
}

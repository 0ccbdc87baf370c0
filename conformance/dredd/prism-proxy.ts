/** `prism proxy --errors` in front of a target: Prism validates every exchange against the spec and turns violations into errors. */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** A port that was free a moment ago on 127.0.0.1 (for tools that cannot bind port 0 and report it). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface PrismProxy {
  url: string;
  output: string[];
  close(): Promise<void>;
}

export async function startPrismProxy(upstream: string, timeoutMs = 30_000): Promise<PrismProxy> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    `${root}node_modules/.bin/prism`,
    ["proxy", "--errors", "-h", "127.0.0.1", "-p", String(port), `${root}generated/openapi.json`, upstream],
    { cwd: root, stdio: ["ignore", "pipe", "pipe"] },
  );
  const output: string[] = [];
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`prism proxy did not start within ${timeoutMs} ms:\n${output.join("")}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      output.push(chunk.toString());
      if (chunk.toString().includes("Prism is listening")) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`prism proxy exited with ${code}:\n${output.join("")}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    output,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/**
 * A real `redis-server` for the shared-store tests (--store redis://): each test starts its own on
 * an ephemeral loopback port, with no persistence, and stops it. Debian's package, not an in-process
 * fake, so the store is tested against the server it will meet (npm test installs it where it can:
 * scripts/ensure-redis.mjs).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { accessSync, constants } from "node:fs";
import net from "node:net";
import { delimiter, join } from "node:path";

export interface RedisServer {
  /** redis://127.0.0.1:PORT */
  url: string;
  port: number;
  /** The current process's id (a restart starts a new one). */
  readonly pid: number;
  /** SIGTERM, and SIGKILL if it has not exited after STOP_GRACE_MS. */
  stop(): Promise<void>;
  /** Stops and starts again on the same port, with an empty data set (nothing is saved). */
  restart(): Promise<void>;
}

const NOT_FOUND = "redis-server not found: apt-get install redis-server (npm test installs it where it can)";
const READY_LIMIT_MS = 10_000;
const STOP_GRACE_MS = 3_000;
/** Another process can take the port between our probe closing it and redis binding it. */
const BIND_ATTEMPTS = 5;
/** Enough of redis's output to explain a failure without holding a chatty log. */
const OUTPUT_LIMIT = 8_192;

/** Whether `command` is an executable in one of PATH's directories. */
export function onPath(command: string): boolean {
  return (process.env.PATH ?? "").split(delimiter).some((dir) => {
    if (!dir) return false;
    try {
      accessSync(join(dir, command), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Whether redis-server is an executable in PATH, to skip or fail early with the install hint. */
export function redisAvailable(): boolean {
  return onPath("redis-server");
}

/**
 * Servers still running: killed when this process exits, so a test that forgets stop() leaks nothing.
 * The exit event is not always there (vitest ends its workers with a signal, a worker thread's exit
 * is not the process's), hence also the parent-death signal in launch().
 */
const running = new Set<ChildProcess>();
let exitHookInstalled = false;

function killOnExit(child: ChildProcess): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on("exit", () => {
      for (const server of running) server.kill("SIGKILL");
    });
  }
  running.add(child);
  child.once("exit", () => running.delete(child));
}

/** A port free on 127.0.0.1 right now: the kernel's pick for a listener on port 0, closed again. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * One PING over a fresh connection: true on +PONG from the process `pid`, false on anything else
 * (not listening yet, still loading). INFO's process_id goes with it because two parallel test files
 * can be handed the same free port: the loser's PING must not be answered by the winner's redis.
 */
function answersPing(port: number, pid: number | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    let reply = "";
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once("error", () => done(false));
    socket.once("connect", () => socket.write("PING\r\nINFO server\r\n"));
    socket.on("data", (chunk) => {
      reply += chunk;
      if (!reply.startsWith("+PONG\r\n") && reply.includes("\r\n")) return done(false);
      const server = /\r\nprocess_id:(\d+)\r\n/.exec(reply);
      if (server) done(Number(server[1]) === pid);
    });
    socket.once("close", () => done(false));
  });
}

/** One redis-server process as started: redis-cluster.ts starts its nodes with these too. */
export interface Launched {
  child: ChildProcess;
  exited: Promise<void>;
  output(): string;
}

/** `extra` adds to the flags (cluster mode); they come last, so they win. */
function launch(port: number, extra: readonly string[]): Launched {
  // No persistence and no daemon: the data lives and dies with the process, and the pid is ours to kill.
  const redis = [
    "redis-server",
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    "--appendonly",
    "no",
    "--protected-mode",
    "no",
    "--daemonize",
    "no",
    "--loglevel",
    "warning",
    ...extra,
  ];
  // setpriv (util-linux, essential on Debian) execs redis-server, same pid, with SIGKILL due when the
  // thread that spawned it ends: a vitest worker killed or ended with a forgotten server takes it along.
  const [command, ...args] = onPath("setpriv") ? ["setpriv", "--pdeathsig", "KILL", "--", ...redis] : redis;
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
  killOnExit(child);
  let output = "";
  // redis logs to stdout; both streams are kept (and always drained) for the error messages.
  const keep = (chunk: Buffer) => void (output.length < OUTPUT_LIMIT && (output += chunk));
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const exited = new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    // ENOENT and the like: no exit event follows.
    child.once("error", (error) => {
      output += `${error.message}\n`;
      running.delete(child);
      resolve();
    });
  });
  return { child, exited, output: () => output };
}

/** redis exited while starting; a port taken since freePort() probed it is worth another port. */
export class RedisExited extends Error {
  get portTaken(): boolean {
    return /address already in use/i.test(this.message);
  }
}

/** Resolves once the server answers PING; rejects if it exits first or READY_LIMIT_MS pass. */
async function waitReady(server: Launched, port: number): Promise<void> {
  let gone = false;
  void server.exited.then(() => (gone = true));
  const deadline = Date.now() + READY_LIMIT_MS;
  while (!gone) {
    if (await answersPing(port, server.child.pid)) return;
    if (Date.now() > deadline) {
      await terminate(server);
      throw new Error(
        `redis-server on port ${port} did not answer PING within ${READY_LIMIT_MS} ms:\n${server.output()}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const { exitCode, signalCode } = server.child;
  throw new RedisExited(
    `redis-server on port ${port} exited (${exitCode ?? signalCode}) before answering PING:\n${server.output()}`,
  );
}

/** SIGTERM, then SIGKILL after STOP_GRACE_MS; resolves once the process is gone. */
export async function terminate(server: Launched): Promise<void> {
  const { child } = server;
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return server.exited;
  child.kill("SIGTERM");
  const killer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
  await server.exited;
  clearTimeout(killer);
}

/**
 * Starts redis-server on `port` (with `extra` flags) and waits for it; the error says why if it does
 * not come up (a RedisExited whose portTaken says whether another port is worth a try).
 */
export async function startOn(port: number, extra: readonly string[] = []): Promise<Launched> {
  const server = launch(port, extra);
  await waitReady(server, port);
  return server;
}

export async function startRedis(): Promise<RedisServer> {
  if (!redisAvailable()) throw new Error(NOT_FOUND);
  let port = 0;
  let server: Launched | undefined;
  for (let attempt = 1; !server; attempt++) {
    port = await freePort();
    try {
      server = await startOn(port);
    } catch (error) {
      if (!(error instanceof RedisExited && error.portTaken) || attempt === BIND_ATTEMPTS) throw error;
    }
  }
  let current = server;
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    get pid() {
      return current.child.pid!;
    },
    stop: () => terminate(current),
    async restart() {
      await terminate(current);
      current = await startOn(port);
    },
  };
}

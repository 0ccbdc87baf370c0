/**
 * What the bench reads from a redis-server (parts 6 and 11, the shared store): its counters (INFO stats
 * and commandstats), its own CPU time, the commands one client sent over a window (MONITOR), and, through
 * a delay line in front of it (RedisDelayLine), how many round trips a request waits for.
 *
 * What counts, found on Redis 7.0.15 (Debian's redis-server) and checked again by every run
 * (`scriptAccounting`, reported in RESULTS.md): a command that a Lua script runs through redis.call
 * IS counted, under its own name, in INFO commandstats (EVAL of a script calling EXISTS once adds 1
 * to cmdstat_eval and 1 to cmdstat_exists) and in total_commands_processed (+2 for that EVAL). So
 * neither counter alone tells what a client sent: a ZADD may be the mock's own command or one inside
 * its commit script. Round trips are therefore counted from MONITOR, whose lines name their source
 * (`127.0.0.1:PORT` for a client, `lua` for a command run by a script); commandstats' EVALSHA + EVAL
 * is the cross-check (a script call is always a client's: a script cannot call another), and the sum
 * over commandstats is what Redis executed in all, scripts' commands included.
 */
import net from "node:net";
import { Redis } from "ioredis";

export interface RedisCounters {
  /** total_commands_processed (INFO stats). */
  total: number;
  /** Calls per command name (INFO commandstats, `cmdstat_NAME:calls=N`), lower case. */
  calls: Map<string, number>;
}

/** A connection of the bench's own to a redis-server: counters, markers, MONITOR. */
export class RedisProbe {
  private constructor(
    private readonly client: Redis,
    /** This connection's address as MONITOR names it (`127.0.0.1:PORT`). */
    private readonly self: string,
  ) {}

  static async connect(url: string): Promise<RedisProbe> {
    // No reconnecting: the bench stops its redis-servers, and a probe left open must not retry against a closed port.
    const client = new Redis(url, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      retryStrategy: () => null,
    });
    // Failures surface as the rejected command; the event would only repeat them on stderr.
    client.on("error", () => undefined);
    await client.connect();
    const info = String(await client.call("CLIENT", "INFO"));
    const self = /(?:^|\s)addr=(\S+)/.exec(info)?.[1] ?? "";
    return new RedisProbe(client, self);
  }

  async counters(): Promise<RedisCounters> {
    const text = await this.client.info("stats", "commandstats");
    const calls = new Map<string, number>();
    for (const m of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls.set(m[1].toLowerCase(), Number(m[2]));
    const total = Number(/^total_commands_processed:(\d+)/m.exec(text)?.[1] ?? Number.NaN);
    return { total, calls };
  }

  /** Milliseconds of one PING's round trip (through a RedisDelayLine when connected to one). */
  async ping(): Promise<number> {
    const started = performance.now();
    await this.client.ping();
    return performance.now() - started;
  }

  async version(): Promise<string> {
    return /^redis_version:(\S+)/m.exec(await this.client.info("server"))?.[1] ?? "unknown";
  }

  /** Clients connected, this probe excluded (a MONITOR connection of its own included). */
  async otherClients(): Promise<number> {
    return Number(/^connected_clients:(\d+)/m.exec(await this.client.info("clients"))?.[1] ?? 0) - 1;
  }

  /**
   * Whether a command run by a script counts in commandstats and in total_commands_processed: one
   * EVAL whose script runs one EXISTS (on a key nothing uses), between two reads of the counters.
   */
  async scriptAccounting(): Promise<{ commandstats: boolean; totalCommandsProcessed: boolean }> {
    const before = await this.counters();
    await this.client.eval("redis.call('EXISTS', KEYS[1]) return 0", 1, "bench:accounting-probe");
    const after = await this.counters();
    const delta = (name: string) => (after.calls.get(name) ?? 0) - (before.calls.get(name) ?? 0);
    // Between the two reads: the first INFO itself (counted once it has run), the EVAL, and the EXISTS if counted.
    return {
      commandstats: delta("exists") === 1 && delta("eval") === 1,
      totalCommandsProcessed: after.total - before.total === 3,
    };
  }

  /**
   * Runs `work` and answers every command another client sent meanwhile (by name, lower case), from
   * MONITOR: commands a script ran (source `lua`) and this probe's own are left out. Markers (ECHO
   * from this connection) bound the window, so nothing sent before `work` began or after it ended counts.
   */
  async commandsSentDuring(work: () => Promise<void>): Promise<string[]> {
    const monitor = await this.client.monitor();
    monitor.on("error", () => undefined);
    try {
      const token = `bench-window-${process.pid}-${Date.now()}`;
      const sent: string[] = [];
      let open = false;
      let seen: (marker: string) => void = () => undefined;
      monitor.on("monitor", (_time: string, args: string[], source: string) => {
        if (source === this.self) {
          if (args[0]?.toLowerCase() === "echo") seen(args[1] ?? "");
          return;
        }
        if (open && source !== "lua") sent.push((args[0] ?? "").toLowerCase());
      });
      const mark = async (marker: string) => {
        const arrived = new Promise<void>((resolve) => (seen = (m) => m === marker && resolve()));
        await this.client.echo(marker);
        await withTimeout(arrived, 5_000, `MONITOR did not show the marker ${marker}`);
      };
      await mark(`${token}-start`);
      open = true;
      await work();
      await mark(`${token}-end`);
      open = false;
      return sent;
    } finally {
      monitor.disconnect();
    }
  }

  async close(): Promise<void> {
    await this.client.quit().catch(() => this.client.disconnect());
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms))),
  ]).finally(() => clearTimeout(timer));
}

/** Calls of each name between two readings, and their sum (what Redis executed, scripts' commands included). */
export function callsBetween(
  before: RedisCounters,
  after: RedisCounters,
  leaveOut: string[] = [],
): { byName: Map<string, number>; sum: number } {
  const byName = new Map<string, number>();
  let sum = 0;
  for (const [name, calls] of after.calls) {
    if (leaveOut.includes(name)) continue;
    const delta = calls - (before.calls.get(name) ?? 0);
    if (delta === 0) continue;
    byName.set(name, delta);
    sum += delta;
  }
  return { byName, sum };
}

/**
 * A TCP relay in front of a redis-server that holds every reply for `delayMs` before passing it on
 * (part 11). Requests go through at once and replies keep their order; each reply is held from when it
 * arrived, not after the one before, so commands sent without waiting (pipelined, or a write nobody
 * awaits) overlap their delays as they overlap their round trips. A request that waits for k round
 * trips in a row before its answer then takes k × delayMs longer: its latency with the delay, less
 * its latency without, over delayMs, counts the round trips on its response path, as its client sees
 * them. Set `delayMs` between requests; 0 passes replies straight through.
 */
export class RedisDelayLine {
  delayMs = 0;
  private readonly sockets = new Set<net.Socket>();

  private constructor(
    private readonly server: net.Server,
    /** redis://127.0.0.1:PORT of the relay: the URL the mock gets. */
    readonly url: string,
  ) {}

  static async start(redisPort: number): Promise<RedisDelayLine> {
    let line: RedisDelayLine | undefined;
    const server = net.createServer((client) => line!.relay(client, redisPort));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    line = new RedisDelayLine(server, `redis://127.0.0.1:${(server.address() as net.AddressInfo).port}`);
    return line;
  }

  private relay(client: net.Socket, redisPort: number): void {
    const redis = net.connect(redisPort, "127.0.0.1");
    for (const socket of [client, redis]) {
      this.sockets.add(socket);
      socket.setNoDelay(true);
      socket.on("error", () => undefined);
      socket.once("close", () => {
        this.sockets.delete(socket);
        client.destroy();
        redis.destroy();
      });
    }
    client.pipe(redis);
    // Replies waiting, oldest first, each with the time it is due; one timer, for the oldest.
    const held: { due: number; chunk: Buffer }[] = [];
    let waiting = false;
    const wait = (ms: number) => {
      waiting = true;
      setTimeout(release, ms);
    };
    const release = () => {
      waiting = false;
      const now = performance.now();
      while (held.length > 0 && held[0].due <= now) client.write(held.shift()!.chunk);
      if (held.length > 0) wait(held[0].due - now);
    };
    redis.on("data", (chunk: Buffer) => {
      if (this.delayMs <= 0 && held.length === 0) return void client.write(chunk);
      held.push({ due: performance.now() + this.delayMs, chunk });
      if (!waiting) wait(this.delayMs);
    });
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

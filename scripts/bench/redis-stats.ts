/**
 * What the bench reads from a redis-server (part 6, the shared store): its counters (INFO stats and
 * commandstats), its own CPU time, and the commands one client sent over a window (MONITOR).
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

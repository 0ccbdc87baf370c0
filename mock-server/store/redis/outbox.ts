/**
 * What the link sends in one turn of the event loop, written at its end (setImmediate) in one write per
 * node: ioredis writes each command to its socket at once, one `write()` system call each (dear on some
 * kernels: 20-30 µs on the VM the bench ran on), so every node's socket is corked while a turn's
 * commands are sent and uncorked at its end, and Node hands each socket all of them in one `writev`.
 * The requests served in one turn (all those whose replies came in one chunk, or whose requests came in
 * one poll) share it. Within the turn, before anything is written:
 *  - a read asked for again (the same unit at the same version) shares the one already sent: it is
 *    written after both asked, so it sees every write either could have seen;
 *  - journal entries go as one script call, and each workspace's coverage keys as one SADD.
 * `together` writes the turn at once (before it returns); `whenWritten` says when it is written.
 * With no socket open (Redis away, or a test's client without one) nothing is held: commands go at once.
 */
import type { Writable } from "node:stream";

/** The commands the outbox sends for a whole turn. */
export interface TurnSends {
  /** Journal entries (JSON) in order; resolves to the seq of the last. */
  journal(capacity: number, entries: string[]): Promise<number>;
  coverage(workspaceId: string, keys: string[], index: boolean): Promise<unknown>;
}

interface Settle<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

function settle<T>(): Settle<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

interface Turn {
  sockets: Writable[];
  /** Told once the turn is written. */
  told: (() => void)[];
  /** Reads sent this turn, by unit and version. */
  reads: Map<string, Promise<unknown>>;
  /** Journal entries by the journal's capacity, and what their seqs wait on. */
  entries: Map<number, { texts: string[]; last: Settle<number> }>;
  coverage: Map<string, { keys: Set<string>; index: boolean; done: Settle<unknown> }>;
}

export class Outbox {
  private turn: Turn | undefined;

  constructor(
    /** The sockets open to Redis now (one per node). */
    private readonly sockets: () => Writable[],
    private readonly sends: TurnSends,
  ) {}

  /** Sends what `issue` sends in this turn (written at its end). */
  later<T>(issue: () => T): T {
    this.hold();
    return issue();
  }

  /** Sends what `issue` sends and writes the whole turn before returning. */
  together<T>(issue: () => T): T {
    this.hold();
    try {
      return issue();
    } finally {
      this.write();
    }
  }

  /** Calls `written` once this turn is written: at once when nothing is held. */
  whenWritten(written: () => void): void {
    if (this.turn) this.turn.told.push(written);
    else written();
  }

  /** A read of `unit` at `version`: the one this turn already sent for it, or `send()`'s. */
  read<T>(unit: string, version: number, send: () => Promise<T>): Promise<T> {
    const turn = this.hold();
    if (!turn) return send();
    const key = `${version} ${unit}`;
    const sent = turn.reads.get(key) as Promise<T> | undefined;
    if (sent) return sent;
    const read = send();
    turn.reads.set(key, read);
    return read;
  }

  /** A journal entry, sent with the turn's others; resolves to its seq. */
  journal(capacity: number, entry: string): Promise<number> {
    const turn = this.hold();
    if (!turn) return this.sends.journal(capacity, [entry]);
    let batch = turn.entries.get(capacity);
    if (!batch) turn.entries.set(capacity, (batch = { texts: [], last: settle() }));
    const texts = batch.texts;
    const at = texts.push(entry) - 1;
    return batch.last.promise.then((last) => last - (texts.length - 1 - at));
  }

  /** Coverage keys of a workspace, sent with the turn's others for it. */
  coverage(workspaceId: string, keys: readonly string[], index: boolean): Promise<unknown> {
    const turn = this.hold();
    if (!turn) return this.sends.coverage(workspaceId, [...keys], index);
    let batch = turn.coverage.get(workspaceId);
    if (!batch) turn.coverage.set(workspaceId, (batch = { keys: new Set(), index: false, done: settle() }));
    for (const key of keys) batch.keys.add(key);
    batch.index ||= index;
    return batch.done.promise;
  }

  /** The turn being held, started now (sockets corked, its write scheduled); undefined with no socket open. */
  private hold(): Turn | undefined {
    if (this.turn) return this.turn;
    const sockets = this.sockets();
    if (sockets.length === 0) return undefined;
    for (const socket of sockets) socket.cork();
    this.turn = { sockets, told: [], reads: new Map(), entries: new Map(), coverage: new Map() };
    setImmediate(() => this.write());
    return this.turn;
  }

  /** Sends the turn's batched commands, then writes everything: one writev per node. */
  private write(): void {
    const turn = this.turn;
    if (!turn) return;
    this.turn = undefined;
    try {
      for (const [workspaceId, batch] of turn.coverage)
        this.sends.coverage(workspaceId, [...batch.keys], batch.index).then(batch.done.resolve, batch.done.reject);
      for (const [capacity, batch] of turn.entries)
        this.sends.journal(capacity, batch.texts).then(batch.last.resolve, batch.last.reject);
    } finally {
      for (const socket of turn.sockets) socket.uncork();
      for (const written of turn.told) written();
    }
  }
}

/**
 * Seeded randomness for everything the mock decides after seeding: ids of created records and the
 * outcomes of simulations. Same seed, same sequence, so runs under the virtual clock are repeatable.
 */
export class Random {
  /** Where the sequence stands; a shared store keeps it with the workspace, so no two processes draw the same ids. */
  state: number;
  /** Told before each draw (a workspace's Random: the draw changes the workspace's state). */
  onDraw: (() => void) | undefined;

  constructor(seed: number) {
    this.state = seed >>> 0 || 0x9e3779b9;
  }

  /** mulberry32: small, fast, good enough for a mock. */
  next(): number {
    this.onDraw?.();
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  hex(length: number): string {
    let out = "";
    while (out.length < length) out += Math.floor(this.next() * 16).toString(16);
    return out;
  }

  /** A version 4 UUID drawn from this sequence. */
  uuid(): string {
    const h = this.hex(32);
    const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
  }
}

/** A stable 32-bit hash (FNV-1a), to derive a per-record Random from its id. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Seeded randomness for the gateway double: every random choice it makes comes from here, so a run is reproducible. */

/** mulberry32: a tiny 32-bit PRNG, uniform in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Independent streams per purpose (noise draw, status pick, latency, ids), so enabling one option does not shift another's sequence. */
export interface Streams {
  noise: () => number;
  pick: () => number;
  latency: () => number;
  ids: () => number;
}

export function streams(seed: number): Streams {
  const derive = (k: number) => mulberry32(Math.imul((seed >>> 0) ^ Math.imul(k, 0x9e3779b9), 0x85ebca6b) ^ k);
  return { noise: derive(1), pick: derive(2), latency: derive(3), ids: derive(4) };
}

/** 16 hex digits from a stream. */
export function hexId(next: () => number): string {
  let s = "";
  for (let i = 0; i < 4; i++)
    s += Math.floor(next() * 0x10000)
      .toString(16)
      .padStart(4, "0");
  return s;
}

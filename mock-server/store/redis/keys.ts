/**
 * Where everything lives in Redis. Each unit that is ever written at once has a hash tag of its own,
 * so every script and every command touches keys of one hash slot: on one Redis and on a Redis Cluster
 * alike (one code path; slots.test.ts proves it for every call the link makes).
 *
 *   apm:{m}:m|h|z            the mock-wide registry (workspaces, root clock, fault rules)
 *   apm:{w:<id>}:m|h|z       a workspace
 *   apm:{w:<id>}:cov         the response variants the workspace's traffic showed (its slot: dropped with it)
 *   apm:{due}:z              workspaceId -> wall-clock ms when it may have a task due (see due.ts)
 *   apm:{due}:g              workspaceId -> the guard of its due entry: "<version>:<hint ms>"
 *   apm:{j}:list, apm:{j}:seq the request journal, newest first, and its ids
 *   apm:{cov}:ids            the workspaces that ever had coverage (what clearing every one visits)
 *
 * A unit's keys: `m` (hash: v = version, b = base, the version of its last whole write, g = the
 * registry generation it was last written whole for), `h` (field -> JSON), `z` (field -> version of its
 * last write; a deleted field stays without a value, so a reader learns of the delete).
 */

/** The registry's unit name (its fields are in fields.ts). */
export const REGISTRY_UNIT = "m";

export const workspaceUnit = (workspaceId: string) => `w:${workspaceId}`;

/**
 * A unit's keys, under its own hash tag; the fourth is a workspace's coverage set (in its slot, so the
 * unit's drop takes it with the rest; the registry has none).
 */
export const unitKeys = (unit: string): [meta: string, values: string, versions: string, coverage: string] => [
  `apm:{${unit}}:m`,
  `apm:{${unit}}:h`,
  `apm:{${unit}}:z`,
  `apm:{${unit}}:cov`,
];

export const coverageKey = (workspaceId: string) => unitKeys(workspaceUnit(workspaceId))[3];

export const COVERAGE_INDEX = "apm:{cov}:ids";

export const DUE_INDEX = "apm:{due}:z";
export const DUE_GUARDS = "apm:{due}:g";

export const JOURNAL_LIST = "apm:{j}:list";
export const JOURNAL_SEQ = "apm:{j}:seq";

/**
 * The part of a key Redis hashes to find its slot: what is between the first `{` and the first `}`
 * after it, when that is not empty; otherwise the whole key.
 */
export function hashTag(key: string): string {
  const open = key.indexOf("{");
  if (open === -1) return key;
  const close = key.indexOf("}", open + 1);
  return close === -1 || close === open + 1 ? key : key.slice(open + 1, close);
}

/** CRC16/XMODEM, what Redis Cluster hashes a key's tag with. */
function crc16(text: string): number {
  let crc = 0;
  for (const byte of new TextEncoder().encode(text)) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** The Cluster hash slot of a key (0..16383). */
export const slotOf = (key: string): number => crc16(hashTag(key)) % 16384;

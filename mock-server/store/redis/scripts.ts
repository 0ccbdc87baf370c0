/**
 * The Lua scripts that make each read and each write one atomic step in Redis. Each declares how many
 * keys it takes (`keys`), and reaches keys only as KEYS[i] given by the caller: never a name built inside
 * the script, so a Cluster can route it and slots.test.ts can check that all of a call's keys share one
 * hash slot (keys.ts).
 *
 * Times come from Redis (TIME), so every process judges a due hint's lease by one clock per slot.
 */

export interface Script {
  /** How many of the call's leading arguments are keys. */
  keys: number;
  lua: string;
}

/** Allowed to write after TIME on Redis 6 (a no-op from Redis 7, which replicates effects anyway). */
const EFFECTS = "if redis.replicate_commands then redis.replicate_commands() end";
const NOW = "local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)";

/**
 * KEYS: a unit's meta, values, versions. ARGV: the version its copy has. Returns {version, kind, flat
 * field/value pairs, generation}; kind 0: nothing changed, 1: the whole unit, 2: what changed since.
 */
export const SYNC: Script = {
  keys: 3,
  lua: `
local meta = redis.call('HMGET', KEYS[1], 'v', 'b', 'g')
local v, b, g = tonumber(meta[1] or '0'), tonumber(meta[2] or '0'), tonumber(meta[3] or '0')
local since = tonumber(ARGV[1])
if since == v then return {v, 0, {}, g} end
if since < b or since > v then return {v, 1, redis.call('HGETALL', KEYS[2]), g} end
local pairs_ = {}
for j, f in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '(' .. since, '+inf')) do
  pairs_[2*j-1] = f
  pairs_[2*j] = redis.call('HGET', KEYS[2], f) or ''
end
return {v, 2, pairs_, g}`,
};

/**
 * KEYS: a unit's meta, values, versions[, the workspace's coverage set, dropped with it]. ARGV: expected
 * version (-1: whatever it is), mode (0 fields, 1 whole, 2 drop), generation (0: none; else written only
 * if the unit's is older), deadline (Redis ms, 0: none), then field/value pairs ('' = deleted). Returns
 * {1, new version} written (0 when dropped), {0, v} the version moved, {2, v} a write for this generation
 * or a newer one is there, {3, v} the deadline passed.
 * A drop leaves the meta as a tombstone (`d`, and the generation it was dropped for): a field write into
 * it is a conflict, and a late whole write for an older generation (a repair) is refused, so a deleted
 * workspace never comes back; a workspace of the same id born later is written as usual.
 */
export const COMMIT: Script = {
  keys: 4,
  lua: `
${EFFECTS}
local meta = redis.call('HMGET', KEYS[1], 'v', 'g', 'd')
local cur, g = tonumber(meta[1] or '0'), tonumber(meta[2] or '0')
local expected, mode, gen, deadline = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
if expected >= 0 and (cur ~= expected or (meta[3] and mode == 0)) then return {0, cur} end
if gen > 0 and g >= gen then return {2, cur} end
if deadline > 0 then
  ${NOW}
  if now > deadline then return {3, cur} end
end
local v = cur + 1
if mode == 2 then
  redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
  redis.call('HSET', KEYS[1], 'v', v, 'b', v, 'g', gen, 'd', 1)
  return {1, 0}
else
  if mode == 1 then
    redis.call('DEL', KEYS[2], KEYS[3])
    redis.call('HSET', KEYS[1], 'b', v)
    redis.call('HDEL', KEYS[1], 'd')
    if gen > 0 then redis.call('HSET', KEYS[1], 'g', gen) end
  end
  for j = 5, #ARGV - 1, 2 do
    local f, value = ARGV[j], ARGV[j + 1]
    if value == '' then redis.call('HDEL', KEYS[2], f) else redis.call('HSET', KEYS[2], f, value) end
    redis.call('ZADD', KEYS[3], v, f)
  end
  redis.call('HSET', KEYS[1], 'v', v)
end
return {1, v}`,
};

/** The version and the Redis ms a guard holds ("<version>:<ms>"; ms 0 when no hint is pending). */
const GUARD = `
local function guard(id)
  local text = redis.call('HGET', KEYS[2], id)
  if not text then return 0, 0 end
  local gv, gt = string.match(text, '^(%d+):(%d+)$')
  return tonumber(gv), tonumber(gt)
end`;

/**
 * KEYS: the due index, its guards. ARGV: workspaceId, wall ms, version triples: each workspace is due
 * by that time at the latest (an earlier entry stays), and no correction read before `version` may
 * undo it while the hint is pending. Returns Redis's ms (the hints' time).
 */
export const DUE_HINT: Script = {
  keys: 2,
  lua: `
${EFFECTS}
${NOW}
${GUARD}
for i = 1, #ARGV - 2, 3 do
  local id, score, version = ARGV[i], tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2])
  local current = redis.call('ZSCORE', KEYS[1], id)
  if not current or score < tonumber(current) then redis.call('ZADD', KEYS[1], score, id) end
  local gv = guard(id)
  if version > gv then gv = version end
  redis.call('HSET', KEYS[2], id, gv .. ':' .. now)
end
return now`,
};

/**
 * KEYS: the due index, its guards. ARGV: workspaceId, wall ms ('' = nothing due), the version that was
 * read, the lease (ms). Sets the entry to what was read, unless the guard is for a later version: a
 * correction already applied, or a hint whose commit may still land. Returns 1 when set, 0 when refused.
 */
export const DUE_CORRECT: Script = {
  keys: 2,
  lua: `
${EFFECTS}
${NOW}
${GUARD}
local id, score, version, lease = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local gv, gt = guard(id)
-- Older than the guard: refused, unless the guard is a hint whose commit can no longer land (its lease
-- ran out) and the state was read at the version that commit expected, or later.
if version < gv and (gt == 0 or now - gt < lease or version < gv - 1) then return 0 end
if score == '' then redis.call('ZREM', KEYS[1], id) else redis.call('ZADD', KEYS[1], tonumber(score), id) end
redis.call('HSET', KEYS[2], id, version .. ':0')
return 1`,
};

/** KEYS: the due index, its guards. ARGV: workspace ids deleted: their entries go. */
export const DUE_FORGET: Script = {
  keys: 2,
  lua: `
for _, id in ipairs(ARGV) do
  redis.call('ZREM', KEYS[1], id)
  redis.call('HDEL', KEYS[2], id)
end
return #ARGV`,
};

/**
 * KEYS: journal, its seq. ARGV: capacity, then entries' JSON (objects), oldest first: each gets the next
 * seq as its id. Returns the last one's.
 */
export const JOURNAL_ADD: Script = {
  keys: 2,
  lua: `
local count = #ARGV - 1
local last = redis.call('INCRBY', KEYS[2], count)
local capacity = tonumber(ARGV[1])
if capacity > 0 then
  for i = 2, #ARGV do
    redis.call('LPUSH', KEYS[1], '{"seq":' .. (last - count + i - 1) .. ',' .. string.sub(ARGV[i], 2))
  end
  redis.call('LTRIM', KEYS[1], 0, capacity - 1)
end
return last`,
};

/** KEYS: journal. ARGV: workspaceId. Keeps the others' entries, in order. */
export const JOURNAL_DROP: Script = {
  keys: 1,
  lua: `
local kept = {}
for _, item in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  if cjson.decode(item).workspaceId ~= ARGV[1] then kept[#kept + 1] = item end
end
redis.call('DEL', KEYS[1])
for i = 1, #kept do redis.call('RPUSH', KEYS[1], kept[i]) end
return #kept`,
};

/** Every script the link defines, by the command name it gets. */
export const SCRIPTS = {
  mockSync: SYNC,
  mockCommit: COMMIT,
  mockDueHint: DUE_HINT,
  mockDueCorrect: DUE_CORRECT,
  mockDueForget: DUE_FORGET,
  mockJournalAdd: JOURNAL_ADD,
  mockJournalDrop: JOURNAL_DROP,
} as const;

export type ScriptName = keyof typeof SCRIPTS;

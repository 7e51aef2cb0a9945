/**
 * The Lua scripts of the Redis backend (redis.ts): each runs atomically on the server, so a patch is
 * all-or-none across processes and instances, and concurrent writers of different keys of one session
 * all survive. Layout under a key prefix P:
 *   P s:<id>     hash: "m:version" "m:createdAt" "m:updatedAt" "m:bytes", and one entry per stored value,
 *                named "<byte length of field>:<field><key>" (prefix-free, so a field can be cleared by prefix)
 *   P idx        sorted set: session id → updatedAt (list order, expiry sweep, eviction)
 *   P totals     hash: tool → usage count across every session ever written; P totalsAt: tool → last use
 * Sizes count UTF-16 code units of key + JSON text, as the other backends do (len16 below).
 * Session keys are named inside the scripts (eviction, sweep) and KEYS span four slots: one Redis node or
 * primary, not a cluster (docs/fleet.md "Redis Cluster: what would change" says what a cluster needs).
 */

const COMMON = `
local function len16(s)
  if not string.find(s, "[\\128-\\255]") then return #s end
  local _, cont = string.gsub(s, "[\\128-\\191]", "")
  local _, astral = string.gsub(s, "[\\240-\\247]", "")
  return #s - cont + astral
end
local function int(n) return string.format("%d", n) end
local function live(key, idx, id, now, ttl)
  local m = redis.call("HMGET", key, "m:version", "m:updatedAt", "m:bytes", "m:createdAt")
  local version = tonumber(m[1]) or 0
  if version > 0 and ttl > 0 and tonumber(m[2]) + ttl <= now then
    redis.call("DEL", key)
    redis.call("ZREM", idx, id)
    return 0, 0, nil
  end
  return version, tonumber(m[3]) or 0, tonumber(m[4])
end
`;

/** KEYS: session, idx, totals, totalsAt. ARGV: id, now, ttl, maxBytes, maxSessions, ifVersion (-1: none), ops JSON, prefix. */
export const PATCH = `${COMMON}
local key, idx, totals, totalsAt = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local id, now, ttl = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local maxBytes, maxSessions, ifVersion = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local ops, prefix = cjson.decode(ARGV[7]), ARGV[8]
local version, bytes, createdAt = live(key, idx, id, now, ttl)
if ifVersion >= 0 and version ~= ifVersion then return {"conflict", version} end
if #ops == 0 then return {"ok", version, bytes} end
local writes, names = {}, nil
local function cur(hf)
  local w = writes[hf]
  if w ~= nil then return w end
  return redis.call("HGET", key, hf) or false
end
local usage = {}
for _, o in ipairs(ops) do
  local p = #o.field .. ":" .. o.field
  if o.op == "clear" then
    names = names or redis.call("HKEYS", key)
    local seen = {}
    for _, hf in ipairs(names) do seen[hf] = true end
    for hf, _ in pairs(writes) do seen[hf] = true end
    for hf, _ in pairs(seen) do
      if string.sub(hf, 1, #p) == p then
        local old = cur(hf)
        if old then bytes = bytes - len16(string.sub(hf, #p + 1)) - len16(old) end
        writes[hf] = false
      end
    end
  else
    local hf = p .. o.key
    local old = cur(hf)
    if old then bytes = bytes - len16(o.key) - len16(old) end
    if o.op == "delete" then
      writes[hf] = false
    else
      local text = o.text
      if o.op == "incr" then
        local n = (old and tonumber(old) or 0) + o.by
        if n == math.floor(n) and math.abs(n) < 1e15 then text = int(n) else text = string.format("%.17g", n) end
        if o.field == "usage" then usage[#usage + 1] = {o.key, o.by} end
      end
      writes[hf] = text
      bytes = bytes + len16(o.key) + len16(text)
    end
  end
end
if bytes > maxBytes then return {"too-large", bytes} end
for hf, v in pairs(writes) do
  if v then redis.call("HSET", key, hf, v) else redis.call("HDEL", key, hf) end
end
version = version + 1
redis.call("HSET", key, "m:version", int(version), "m:createdAt", int(createdAt or now), "m:updatedAt", int(now), "m:bytes", int(bytes))
redis.call("ZADD", idx, int(now), id)
if ttl > 0 then redis.call("PEXPIRE", key, int(ttl + 60000)) else redis.call("PERSIST", key) end
for _, u in ipairs(usage) do
  redis.call("HINCRBYFLOAT", totals, u[1], u[2])
  redis.call("HSET", totalsAt, u[1], int(now))
end
local n = redis.call("ZCARD", idx)
if n > maxSessions then
  for _, v in ipairs(redis.call("ZRANGE", idx, 0, n - maxSessions - 1)) do
    redis.call("DEL", prefix .. "s:" .. v)
    redis.call("ZREM", idx, v)
  end
end
return {"ok", version, bytes}
`;

/** KEYS: session, idx. ARGV: id, now, ttl. Returns 1 when a live session was removed. */
export const REMOVE = `${COMMON}
local version = live(KEYS[1], KEYS[2], ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]))
redis.call("DEL", KEYS[1])
redis.call("ZREM", KEYS[2], ARGV[1])
if version > 0 then return 1 end
return 0
`;

/** KEYS: idx. ARGV: now, ttl, prefix. Deletes every session not written for ttl; returns how many. */
export const SWEEP = `
local ttl = tonumber(ARGV[2])
if ttl <= 0 then return 0 end
local victims = redis.call("ZRANGEBYSCORE", KEYS[1], "-inf", string.format("%d", tonumber(ARGV[1]) - ttl))
for _, v in ipairs(victims) do
  redis.call("DEL", ARGV[3] .. "s:" .. v)
  redis.call("ZREM", KEYS[1], v)
end
return #victims
`;

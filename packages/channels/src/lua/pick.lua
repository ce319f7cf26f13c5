-- A call's channel, chosen and leased in one step (its end is recorded in one step too:
-- release.lua), so every worker sees one truth about capacity and health (keys.ts has the layout).
-- Every key is built from the prefix in the script; KEYS[1] (the channels' version key, in the same
-- hash slot) is there only so Redis Cluster sends the script to the node that holds them all.
-- ARGV: prefix, lease ms, token, two random numbers in [0, 1), n, then per candidate: id,
-- tier, weight, limit sets ("name,maxConcurrent,maxPerMinute|..." with the channel's own first).
-- A candidate is usable when its breaker lets a call through (closed; or open past its `until`
-- with no probe out: this call is then the probe) and every limit set has room now. Among the
-- usable ones of the best tier, two are drawn by weight and the less loaded one wins; its limit
-- sets get the lease (and the next start of a per-minute limit moves on by 60000/(n-1) ms, so
-- no sliding minute holds more than n starts).
-- Returns {id, 1 if probe} or {'', wait}: wait is -1 when something was full (a freed lease is
-- announced), else the ms until the first open breaker or per-minute limit lets a call through.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local P, leaseMs, token = ARGV[1], tonumber(ARGV[2]), ARGV[3]
local r1, r2, n = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local usable, bestTier, wait, full = {}, nil, nil, false
local function later(ms) if wait == nil or ms < wait then wait = ms end end
for i = 0, n - 1 do
  local at = 7 + i * 4
  local id, tier, weight, spec = ARGV[at], tonumber(ARGV[at + 1]), tonumber(ARGV[at + 2]), ARGV[at + 3]
  local ok, probe = true, false
  local h = redis.call('HMGET', P .. ':chh:' .. id, 'state', 'until', 'probe', 'probeUntil')
  if h[1] == 'open' then
    local untilMs = tonumber(h[2] or '0') or 0
    if now < untilMs then ok = false; later(untilMs - now)
    elseif h[3] and h[3] ~= '' and (tonumber(h[4] or '0') or 0) > now then ok = false; later(250)
    else probe = true end
  end
  local sets, load = {}, 0
  if ok then
    for name, max, perMin in string.gmatch(spec, '([^|,]+),(%d+),(%d+)') do
      max, perMin = tonumber(max), tonumber(perMin)
      local key = P .. ':cap:' .. name
      redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
      local inflight = redis.call('ZCARD', key)
      if #sets == 0 then load = inflight / (max > 0 and max or weight * 16) end
      if max > 0 and inflight >= max then ok = false; full = true; break end
      if perMin > 0 then
        local tat = tonumber(redis.call('GET', key .. ':tat') or '0') or 0
        if tat > now then ok = false; later(tat - now); break end
      end
      sets[#sets + 1] = {key, perMin}
    end
  end
  if ok and (bestTier == nil or tier <= bestTier) then
    if bestTier == nil or tier < bestTier then bestTier = tier; usable = {} end
    usable[#usable + 1] = {id = id, weight = weight, load = load, probe = probe, sets = sets}
  end
end
if bestTier == nil then
  if full then return {'', -1} end
  return {'', wait or 1000}
end
local total = 0
for _, c in ipairs(usable) do total = total + c.weight end
local function drawn(r)
  local left = r * total
  for _, c in ipairs(usable) do
    left = left - c.weight
    if left < 0 then return c end
  end
  return usable[#usable]
end
local a, b = drawn(r1), drawn(r2)
local chosen = a
if b.load < a.load then chosen = b end
for _, s in ipairs(chosen.sets) do
  -- no expiry on the set: a lease's score is its end (each pick drops those past it, and a set
  -- with no lease left is no key); a key's own would lapse under a call renewed past it
  redis.call('ZADD', s[1], now + leaseMs, token)
  if s[2] > 0 then
    local interval = 60000
    if s[2] > 1 then interval = math.ceil(60000 / (s[2] - 1)) end
    local tat = math.max(tonumber(redis.call('GET', s[1] .. ':tat') or '0') or 0, now) + interval
    redis.call('SET', s[1] .. ':tat', tat, 'PX', interval + 60000)
  end
end
if chosen.probe then redis.call('HSET', P .. ':chh:' .. chosen.id, 'probe', token, 'probeUntil', now + leaseMs) end
-- the lease, for a begin that follows in the same script (billing's begin.lua): it needs no read to know
shared.lease = token
if chosen.probe then return {chosen.id, 1} end
return {chosen.id, 0}

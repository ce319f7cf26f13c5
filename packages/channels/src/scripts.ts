/**
 * A call's channel, chosen and leased in one step, and its end recorded in one step, so every
 * worker sees one truth about capacity and health (keys.ts has the layout). Every key is built
 * from the prefix in the script; KEYS[1] (the channels' version key, in the same hash slot) is
 * there only so Redis Cluster sends the script to the node that holds them all.
 *
 * PICK. ARGV: prefix, lease ms, token, two random numbers in [0, 1), n, then per candidate: id,
 * tier, weight, limit sets ("name,maxConcurrent,maxPerMinute|..." with the channel's own first).
 * A candidate is usable when its breaker lets a call through (closed; or open past its `until`
 * with no probe out: this call is then the probe) and every limit set has room now. Among the
 * usable ones of the best tier, two are drawn by weight and the less loaded one wins; its limit
 * sets get the lease (and the next start of a per-minute limit moves on by 60000/(n-1) ms, so
 * no sliding minute holds more than n starts).
 * Returns {id, 1 if probe} or {'', wait}: wait is -1 when something was full (a freed lease is
 * announced), else the ms until the first open breaker or per-minute limit lets a call through.
 */
export const PICK = `
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
  redis.call('ZADD', s[1], now + leaseMs, token)
  redis.call('PEXPIRE', s[1], leaseMs * 2)
  if s[2] > 0 then
    local interval = 60000
    if s[2] > 1 then interval = math.ceil(60000 / (s[2] - 1)) end
    local tat = math.max(tonumber(redis.call('GET', s[1] .. ':tat') or '0') or 0, now) + interval
    redis.call('SET', s[1] .. ':tat', tat, 'PX', interval + 60000)
  end
end
if chosen.probe then redis.call('HSET', P .. ':chh:' .. chosen.id, 'probe', token, 'probeUntil', now + leaseMs) end
if chosen.probe then return {chosen.id, 1} end
return {chosen.id, 0}
`;

/**
 * The end of a call: its leases given back (a waiting worker is told), and its outcome counted.
 * ARGV: prefix, id, token, limit set names ("a|b"), outcome, latency ms, delay ms, window ms,
 * minimum calls, failure share, cooldown ms, disable reason, consecutive failures.
 * Outcomes: ok (an answer, or a refusal of the content: the channel works), fail (5xx, timeout,
 * reset), limited (429: open for `delay`), auth (401/403: the channel is disabled), none (no call
 * was made after all: the job was cancelled at the last moment).
 * The breaker opens when that many calls failed in a row (a channel that just broke, however
 * many successes its window still holds), when over the window at least `minimum` calls were
 * made and at least `share` of them failed, or when the probe after such an opening fails; a probe that works
 * closes it (after a 429 pause the probe's failure is counted like any other). Returns the state.
 */
export const RELEASE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local P, id, token, outcome = ARGV[1], ARGV[2], ARGV[3], ARGV[5]
local freed = 0
for name in string.gmatch(ARGV[4], '[^|]+') do freed = freed + redis.call('ZREM', P .. ':cap:' .. name, token) end
if freed > 0 then redis.call('PUBLISH', P .. ':cap:freed', id) end
local hk = P .. ':chh:' .. id
local h = redis.call('HMGET', hk, 'state', 'probe', 'until', 'lat', 'why')
local probe = h[2] == token
if probe then redis.call('HDEL', hk, 'probe', 'probeUntil') end
if outcome == 'none' then return h[1] or 'closed' end
if outcome == 'auth' then
  if redis.call('EXISTS', P .. ':channel:' .. id) == 1 then
    redis.call('HSET', P .. ':channel:' .. id, 'disabled', '1', 'disabledReason', ARGV[12], 'updatedAt', now)
    redis.call('INCR', P .. ':channels:version')
  end
  return 'disabled'
end
local latency = tonumber(ARGV[6])
local lat = tonumber(h[4] or '')
if lat then lat = math.floor(lat * 0.8 + latency * 0.2) else lat = latency end
local windowMs = tonumber(ARGV[8])
local span = math.max(1, math.floor(windowMs / 6))
local bucket = math.floor(now / span)
redis.call('HSET', hk, 'lat', lat, 'span', span)
local state = h[1] or 'closed'
if outcome == 'limited' then
  local untilMs = math.max(tonumber(h[3] or '0') or 0, now + tonumber(ARGV[7]))
  redis.call('HSET', hk, 'state', 'open', 'until', untilMs, 'why', 'limited')
  return 'open'
end
-- the probe after a 429 pause that fails counts like any failure of a closed channel: only
-- failures open the breaker for a cooldown
local afterPause = probe and h[5] == 'limited'
if afterPause and outcome == 'fail' then
  state = 'closed'
  redis.call('HSET', hk, 'state', 'closed')
end
local wk = P .. ':chw:' .. id
redis.call('HINCRBY', wk, bucket .. ':n', 1)
local run = 0
if outcome == 'fail' then
  redis.call('HINCRBY', wk, bucket .. ':f', 1)
  run = redis.call('HINCRBY', hk, 'run', 1)
else
  redis.call('HSET', hk, 'run', 0)
end
local fields = redis.call('HGETALL', wk)
local calls, failures = 0, 0
for i = 1, #fields, 2 do
  local b, kind = string.match(fields[i], '^(%d+):(%a)$')
  if b and tonumber(b) > bucket - 6 then
    if kind == 'n' then calls = calls + tonumber(fields[i + 1]) else failures = failures + tonumber(fields[i + 1]) end
  else
    redis.call('HDEL', wk, fields[i])
  end
end
redis.call('PEXPIRE', wk, windowMs * 2)
if outcome == 'ok' then
  if state == 'open' and probe then
    redis.call('HSET', hk, 'state', 'closed')
    if not afterPause then redis.call('DEL', wk) end
    return 'closed'
  end
  return state
end
local tripped = run >= tonumber(ARGV[13]) or (calls >= tonumber(ARGV[9]) and failures >= calls * tonumber(ARGV[10]))
if (probe and not afterPause) or (state ~= 'open' and tripped) then
  redis.call('HSET', hk, 'state', 'open', 'until', now + tonumber(ARGV[11]), 'why', 'failures')
  return 'open'
end
return state
`;

/** A call still running keeps its leases (and a probe its claim). ARGV: prefix, token, lease ms, limit set names ("a|b"), channel id. */
export const RENEW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for name in string.gmatch(ARGV[4], '[^|]+') do redis.call('ZADD', ARGV[1] .. ':cap:' .. name, 'XX', now + tonumber(ARGV[3]), ARGV[2]) end
local probe = ARGV[1] .. ':chh:' .. ARGV[5]
if redis.call('HGET', probe, 'probe') == ARGV[2] then redis.call('HSET', probe, 'probeUntil', now + tonumber(ARGV[3])) end
return 1
`;

-- The end of a call: its leases given back (a waiting worker is told), and its outcome counted.
-- KEYS[1]: the channels' version key, for routing only (pick.lua).
-- ARGV: prefix, id, token, limit set names ("a|b"), outcome, latency ms, delay ms, window ms,
-- minimum calls, failure share, cooldown ms, disable reason, consecutive failures.
-- Outcomes: ok (an answer, or a refusal of the content: the channel works), fail (5xx, timeout,
-- reset), limited (429: open for `delay`), exhausted (a quota or spend cap: open for `delay`, the
-- vendor's reset or a probe later, with the vendor's reason), auth (401/403: the channel is
-- disabled), none (no call was made after all: the job was cancelled at the last moment).
-- The breaker opens when that many calls failed in a row (a channel that just broke, however
-- many successes its window still holds), when over the window at least `minimum` calls were
-- made and at least `share` of them failed, or when the probe after such an opening fails; a
-- probe that works closes it (after a 429 pause the probe's failure is counted like any other).
-- Returns the channel's state: closed, open, exhausted or disabled.
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
-- the latency and span go with the step's other fields of the health hash, in one HSET
local state = h[1] or 'closed'
if outcome == 'limited' then
  local untilMs = math.max(tonumber(h[3] or '0') or 0, now + tonumber(ARGV[7]))
  redis.call('HSET', hk, 'lat', lat, 'span', span, 'state', 'open', 'until', untilMs, 'why', 'limited')
  return 'open'
end
if outcome == 'exhausted' then
  redis.call('HSET', hk, 'lat', lat, 'span', span, 'state', 'open', 'until', now + tonumber(ARGV[7]), 'why', 'exhausted', 'reason', ARGV[12])
  return 'exhausted'
end
-- the probe after a 429 pause that fails counts like any failure of a closed channel: only
-- failures open the breaker for a cooldown
local afterPause = probe and h[5] == 'limited'
if afterPause and outcome == 'fail' then
  state = 'closed'
  redis.call('HSET', hk, 'state', 'closed')
end
local wk = P .. ':chw:' .. id
local opened = redis.call('HINCRBY', wk, bucket .. ':n', 1) == 1
local run = 0
if outcome == 'fail' then
  redis.call('HINCRBY', wk, bucket .. ':f', 1)
  run = redis.call('HINCRBY', hk, 'run', 1)
  redis.call('HSET', hk, 'lat', lat, 'span', span)
else
  redis.call('HSET', hk, 'lat', lat, 'span', span, 'run', 0)
end
-- The window is read (its buckets past it dropped) after a failure, which may trip the breaker,
-- and by the call that opens a bucket: a healthy channel's window is tidied and its expiry moved
-- on once a bucket span, not on every call.
local calls, failures = 0, 0
if outcome ~= 'ok' or opened then
  local fields = redis.call('HGETALL', wk)
  for i = 1, #fields, 2 do
    local b, kind = string.match(fields[i], '^(%d+):(%a)$')
    if b and tonumber(b) > bucket - 6 then
      if kind == 'n' then calls = calls + tonumber(fields[i + 1]) else failures = failures + tonumber(fields[i + 1]) end
    else
      redis.call('HDEL', wk, fields[i])
    end
  end
  redis.call('PEXPIRE', wk, windowMs * 2)
end
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

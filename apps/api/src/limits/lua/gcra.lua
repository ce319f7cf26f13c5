-- Per-key request rate, as a GCRA token bucket in Redis: `limit` requests may come at once,
-- then one more every 60/limit seconds. Redis's own clock decides, so every api process
-- sharing the Redis shares the limit. Returns 0 when allowed, else the ms until a retry fits.
-- KEYS: the key's bucket. ARGV: ms between requests, burst.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local next_tat = tat + interval
local allow_at = next_tat - interval * burst
if allow_at > now then return math.ceil(allow_at - now) end
redis.call('SET', KEYS[1], tostring(next_tat), 'PX', math.ceil(next_tat - now))
return 0

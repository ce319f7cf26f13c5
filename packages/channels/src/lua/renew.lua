-- A call still running keeps its leases (and a probe its claim). KEYS[1]: the channels' version
-- key, for routing only (pick.lua). ARGV: prefix, token, lease ms, limit set names ("a|b"), channel id.
-- Returns 1.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for name in string.gmatch(ARGV[4], '[^|]+') do redis.call('ZADD', ARGV[1] .. ':cap:' .. name, 'XX', now + tonumber(ARGV[3]), ARGV[2]) end
local probe = ARGV[1] .. ':chh:' .. ARGV[5]
if redis.call('HGET', probe, 'probe') == ARGV[2] then redis.call('HSET', probe, 'probeUntil', now + tonumber(ARGV[3])) end
return 1

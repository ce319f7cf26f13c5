-- Whether a client address may try to authenticate: 0 when it may, else the ms until its window
-- of failures ends (at least 1), once it has failed `limit` times in it.
-- KEYS: the address's counter. ARGV: limit.
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n < tonumber(ARGV[1]) then return 0 end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 1 then return 1 end
return ttl

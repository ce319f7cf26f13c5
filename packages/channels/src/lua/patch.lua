-- Changes fields of a channel and bumps the version workers watch.
-- KEYS: the channel, the version. ARGV: field/value pairs. Returns 1, or 0 when there is no such channel.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
redis.call('INCR', KEYS[2])
return 1

-- Creates a channel: one step that also bumps the version workers watch.
-- KEYS: the channel, the set of ids, the version. ARGV: id, then field/value pairs.
-- Returns 1 when made, 0 when it exists already.
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('SADD', KEYS[2], ARGV[1])
redis.call('INCR', KEYS[3])
return 1

-- Deletes a channel with its health and window, and bumps the version workers watch.
-- KEYS: the channel, its health, its window, the set of ids, the version. ARGV: id.
-- Returns 1, or 0 when there is no such channel.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
redis.call('SREM', KEYS[4], ARGV[1])
redis.call('INCR', KEYS[5])
return 1

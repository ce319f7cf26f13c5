-- Deletes a channel with its health, its window and its own leases (a worker killed mid-call
-- leaves one that only a pick of the channel would drop), and bumps the version workers watch.
-- KEYS: the channel, its health, its window, the set of ids, the version, its leases. ARGV: id.
-- Returns 1, or 0 when there is no such channel.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[6])
redis.call('SREM', KEYS[4], ARGV[1])
redis.call('INCR', KEYS[5])
return 1

-- Lets go of a lock only while it still holds the caller's token (it may have lapsed and been
-- taken by another). KEYS: the lock. ARGV: token. Returns 1 when released, else 0.
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0

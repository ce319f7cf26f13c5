-- Keeps a lock for another TTL, only while it still holds the caller's token.
-- KEYS: the lock. ARGV: token, TTL in ms. Returns 1 when extended, else 0.
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0

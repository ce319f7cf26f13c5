-- The first `count` records were written as part `part`: drop them. A flush repeated after a crash
-- (same part, same lines) finds the part number moved on and drops nothing twice.
-- KEYS: batch, records. ARGV: count, part. Returns 1, or 0 when that part was flushed already.
if tonumber(redis.call('HGET', KEYS[1], 'parts') or '0') ~= tonumber(ARGV[2]) then return 0 end
redis.call('LTRIM', KEYS[2], tonumber(ARGV[1]), -1)
redis.call('HINCRBY', KEYS[1], 'parts', 1)
redis.call('HINCRBY', KEYS[1], 'flushed', tonumber(ARGV[1]))
return 1

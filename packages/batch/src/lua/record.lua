-- A line's outcome, once: the output line joins the records, the counts and the progress move on,
-- and the line leaves the in-flight set. What it was charged is read from its reservation.
-- KEYS: batch, done, inflight, offsets, records, the line's reservation.
-- ARGV: line, kind ('o' output, 'e' error), the output line, images, audio ms.
-- Returns 1, or 0 when the line was recorded already.
if redis.call('GETBIT', KEYS[2], ARGV[1]) == 1 then return 0 end
redis.call('SETBIT', KEYS[2], ARGV[1], 1)
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('HDEL', KEYS[4], ARGV[1])
redis.call('RPUSH', KEYS[5], ARGV[2] .. ARGV[3])
redis.call('HINCRBY', KEYS[1], 'seq', 1)
redis.call('HINCRBY', KEYS[1], ARGV[2] == 'o' and 'completed' or 'failed', 1)
if redis.call('HGET', KEYS[6], 'state') == 'settled' then
  redis.call('HINCRBY', KEYS[1], 'charged', tonumber(redis.call('HGET', KEYS[6], 'charged') or '0'))
end
redis.call('HINCRBY', KEYS[1], 'images', tonumber(ARGV[4]))
redis.call('HINCRBY', KEYS[1], 'audio_ms', tonumber(ARGV[5]))
return 1

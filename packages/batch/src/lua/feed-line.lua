-- Feeds a line: into the in-flight set, with its offset, unless its outcome is recorded already.
-- A line is fed and recorded against the same `done` bit, so a line recorded once is never fed
-- again nor recorded twice, whichever worker gets there first.
-- KEYS: done, inflight, offsets. ARGV: line, byte offset. Returns 1, or 0 when the line is recorded already.
if redis.call('GETBIT', KEYS[1], ARGV[1]) == 1 then return 0 end
local t = redis.call('TIME')
redis.call('ZADD', KEYS[2], 'NX', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000), ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
return 1

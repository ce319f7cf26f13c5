-- After helpers.lua. ARGV: S, jobId, lane, account, cost. Adds a pending job; a second enqueue of
-- the same id does nothing. Returns 1 when added, else 0.
local jobId, lane, account, cost = ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5])
if redis.call('HEXISTS', S .. ':jobs', jobId) == 1 or redis.call('HEXISTS', S .. ':running', jobId) == 1 then return 0 end
local q = laneKey(lane, 'q:' .. account)
if redis.call('ZCARD', q) == 0 then redis.call('RPUSH', laneKey(lane, 'ring'), account) end
redis.call('ZADD', q, redis.call('INCR', S .. ':seq'), jobId)
redis.call('HSET', S .. ':jobs', jobId, lane .. ' ' .. account .. ' ' .. cost .. ' ' .. nowMs())
redis.call('HINCRBY', laneKey(lane, 'count'), account, 1)
redis.call('HINCRBY', laneKey(lane, 'cost'), account, cost)
return 1

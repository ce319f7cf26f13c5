-- After helpers.lua. ARGV: S, workerId, concurrency, ttl ms, cap (0 = none). A worker says it is
-- alive and what it runs; workers gone quiet are dropped, and the jobs finished lately (finish.lua
-- adds one a job) are kept to the last 200: what snapshot.lua reads, bounded between two beats by
-- what finishes in a tick. Returns 1.
local now = nowMs()
redis.call('ZADD', S .. ':alive', now + tonumber(ARGV[4]), ARGV[2])
redis.call('HSET', S .. ':concurrency', ARGV[2], ARGV[3])
for _, gone in ipairs(redis.call('ZRANGEBYSCORE', S .. ':alive', '-inf', now)) do
  redis.call('ZREM', S .. ':alive', gone)
  redis.call('HDEL', S .. ':concurrency', gone)
end
if tonumber(ARGV[5]) > 0 then redis.call('SET', S .. ':cap', ARGV[5]) else redis.call('DEL', S .. ':cap') end
redis.call('ZREMRANGEBYRANK', S .. ':recent', 0, -201)
-- the window kept for admissions (window.lua) is made again from what the workers say now
redis.call('DEL', S .. ':window')
return 1

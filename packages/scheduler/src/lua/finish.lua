-- After helpers.lua. ARGV: S, jobId. A dispatched job is past its upstream calls (or ended:
-- completed, failed for good, refused): its place in the window and its account's share are free.
-- Said twice, the second time does nothing (0). 2 when jobs are pending (a dispatch has work to
-- hand out), else 1.
-- (a promoted job left S:dispatching with its promotion; recover() clears one whose did not say so)
local jobId = ARGV[2]
local v = redis.call('HGET', S .. ':running', jobId)
if not v then return 0 end
local f = split(v)
redis.call('HDEL', S .. ':running', jobId)
oneFewer(S .. ':running:count', S .. ':running:cost', f[1], tonumber(f[2]))
local now = nowMs()
-- how long it held its place (entries written before that was kept have no start: -1)
local held = f[4] and (now - tonumber(f[4])) or -1
-- trimmed by the workers' heartbeats, not here (heartbeat.lua): one command less a job
redis.call('ZADD', S .. ':recent', now, jobId .. ' ' .. f[2] .. ' ' .. held)
if redis.call('HLEN', S .. ':jobs') > 0 then return 2 end
return 1

-- After helpers.lua and window.lua. ARGV: S, account key prefix, jobId, lane, account, cost.
-- Admission: while nothing of this queue is pending and the window has room (and the account is
-- under its cap), the job is handed to the workers at once, as a dispatch would hand it (returns
-- 2: add it to BullMQ waiting, not parked); otherwise it is enqueued (1), or was already: pending (0)
-- or holding a running place (3: an admission sent again after its reply was lost, whose first run
-- took the place; its job is added waiting too, as nothing will promote it).
-- Saves a dispatch and a promotion per job whenever the upstream keeps up, which is most of the time.
-- Such a job is not in S:dispatching (it needs no promotion): its running entry's time is what
-- recover() judges it by, should its add never happen.
local A, jobId, lane, account, cost = ARGV[2], ARGV[3], ARGV[4], ARGV[5], tonumber(ARGV[6])
local pending = redis.call('HLEN', S .. ':jobs')
if pending > 0 and redis.call('HEXISTS', S .. ':jobs', jobId) == 1 then return 0 end
local now = nowMs()
if pending == 0 and redis.call('HLEN', S .. ':running') < windowSize(now) then
  -- the cap as the reservation just read it in the same script (billing's reserve.lua), else read here
  local cap = shared.caps and shared.caps[A .. account]
  if cap == nil then cap = redis.call('HGET', A .. account, 'maxInFlight') end
  local most = tonumber(cap)
  if not (most and most > 0 and (tonumber(redis.call('HGET', S .. ':running:count', account)) or 0) >= most) then
    -- HSETNX: a job already running (an admission repeated) is left as it is
    if redis.call('HSETNX', S .. ':running', jobId, account .. ' ' .. cost .. ' ' .. lane .. ' ' .. now) == 0 then return 3 end
    redis.call('HINCRBY', S .. ':running:count', account, 1)
    redis.call('HINCRBY', S .. ':running:cost', account, cost)
    return 2
  end
end
if redis.call('HEXISTS', S .. ':running', jobId) == 1 then return 3 end
local q = laneKey(lane, 'q:' .. account)
if redis.call('ZCARD', q) == 0 then redis.call('RPUSH', laneKey(lane, 'ring'), account) end
redis.call('ZADD', q, redis.call('INCR', S .. ':seq'), jobId)
redis.call('HSET', S .. ':jobs', jobId, lane .. ' ' .. account .. ' ' .. cost .. ' ' .. now)
redis.call('HINCRBY', laneKey(lane, 'count'), account, 1)
redis.call('HINCRBY', laneKey(lane, 'cost'), account, cost)
return 1

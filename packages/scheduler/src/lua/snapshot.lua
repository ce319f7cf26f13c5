-- After helpers.lua and window.lua. ARGV: S, account key prefix, lanes (highest first), lane,
-- account, jobId ('' for a job not yet enqueued). What an estimate of when a job starts needs, in
-- one round trip: {jobs handed out but not yet calling, cost pending in higher lanes, cost of the
-- account's own jobs ahead, flat list cost/count/weight of the other accounts of the lane, cost
-- finished lately (up to the last 200 jobs within a minute), ms since the first of those finished
-- (at least 1 s), how many finished, count pending in higher lanes, own rank, own weight, cost
-- handed out and not yet finished, mean ms a finished job held its place (0: unknown)}; the last
-- two are left out when the job starts at once (rank -1).
local A = ARGV[2]
local lanes = split(ARGV[3])
local lane, account, jobId = ARGV[4], ARGV[5], ARGV[6]
local now = nowMs()
local waiting = math.max(0, redis.call('HLEN', S .. ':running') - windowSize(now))
local higherCost, higherCount = 0, 0
for _, l in ipairs(lanes) do
  if l == lane then break end
  for i, v in ipairs(redis.call('HVALS', laneKey(l, 'cost'))) do higherCost = higherCost + tonumber(v) end
  for i, v in ipairs(redis.call('HVALS', laneKey(l, 'count'))) do higherCount = higherCount + tonumber(v) end
end
-- nothing waits anywhere and the window has room: a new job starts at once (the common case, kept cheap)
if jobId == '' and waiting == 0 and redis.call('HLEN', S .. ':jobs') == 0 and redis.call('HLEN', S .. ':running') < windowSize(now) then
  return {0, 0, '0', {}, 0, 1000, 0, 0, -1, '1'}
end
local q = laneKey(lane, 'q:' .. account)
local rank = redis.call('ZCARD', q)
if jobId ~= '' then
  rank = redis.call('ZRANK', q, jobId)
  -- no longer pending: handed to the workers, it starts as soon as a worker is free
  if not rank then return {waiting, 0, '0', {}, 0, 1000, 0, 0, -1, '1'} end
end
local own = 0
if rank > 0 then
  local ahead = redis.call('ZRANGE', q, 0, math.min(rank, 500) - 1)
  for _, id in ipairs(ahead) do
    local v = redis.call('HGET', S .. ':jobs', id)
    if v then own = own + tonumber(split(v)[3]) end
  end
  if rank > 500 then own = own * rank / 500 end
end
local others = {}
local costs = redis.call('HGETALL', laneKey(lane, 'cost'))
for i = 1, #costs, 2 do
  if costs[i] ~= account then
    others[#others + 1] = costs[i + 1]
    others[#others + 1] = redis.call('HGET', laneKey(lane, 'count'), costs[i]) or '0'
    others[#others + 1] = tostring(tonumber(redis.call('HGET', A .. costs[i], 'weight')) or 1)
  end
end
-- the pace over the time actually observed, not a whole minute (a burst has just begun)
-- the last 200 within the minute (more may be there until the next heartbeat trims them)
local recent = redis.call('ZREVRANGEBYSCORE', S .. ':recent', '+inf', now - 60000, 'WITHSCORES', 'LIMIT', 0, 200)
local done, first, heldSum, heldCount = 0, now, 0, 0
for i = 1, #recent, 2 do
  local r = split(recent[i])
  done = done + tonumber(r[2])
  first = math.min(first, tonumber(recent[i + 1]))
  local held = tonumber(r[3] or '-1')
  if held >= 0 then heldSum, heldCount = heldSum + held, heldCount + 1 end
end
local span = math.max(now - first, 1000)
local inFlight = 0
for _, v in ipairs(redis.call('HVALS', S .. ':running:cost')) do inFlight = inFlight + tonumber(v) end
local weight = tonumber(redis.call('HGET', A .. account, 'weight')) or 1
return {waiting, higherCost, tostring(own), others, done, span, #recent / 2, higherCount, rank, tostring(weight), inFlight, heldCount > 0 and math.floor(heldSum / heldCount) or 0}

/**
 * The schedule lives in Redis and changes only inside these scripts, so any number of api and
 * worker processes can enqueue and dispatch at once. Keys, under S = {prefix}:sched:{queue}
 * (one hash tag, one Redis Cluster slot):
 *   S:jobs                  hash  pending jobId -> "lane account cost enqueuedAtMs"
 *   S:{lane}:ring           list  accounts with pending jobs in the lane, in turn order
 *   S:{lane}:q:{account}    zset  the account's pending jobs, by arrival
 *   S:{lane}:deficit        hash  account -> credit left (cost units; may go negative)
 *   S:{lane}:turn           str   the account whose turn has been credited
 *   S:{lane}:count, :cost   hash  account -> pending jobs, pending cost
 *   S:running               hash  jobId -> "account cost lane handedOutAtMs": handed to the workers,
 *                                 its upstream call(s) not over yet (copying the result holds no place)
 *   S:running:count, :cost  hash  account -> such jobs, their cost (its share of the capacity)
 *   S:dispatching           zset  jobId -> ms it was picked (promoted into BullMQ right after)
 *   S:alive / S:concurrency zset workerId -> expiry ms / hash workerId -> jobs it runs at once
 *   S:cap                   str   the most jobs handed to workers at once (unset: their concurrency)
 *   S:recent                zset  "jobId cost ms" -> ms, the last 200 jobs finished within a minute and how
 *                                 long each held its place (the pace estimates use)
 * Account settings are read from {prefix}:account:{id} (weight, maxInFlight).
 *
 * The script bodies share a preamble of helpers; each declares one key (S:jobs) so a cluster
 * client routes it to the slot every other key lives in.
 */
export const HELPERS = `
local S = ARGV[1]
local function laneKey(lane, part) return S .. ':' .. lane .. ':' .. part end
local function split(v)
  local out = {}
  for w in string.gmatch(v, '%S+') do out[#out + 1] = w end
  return out
end
local function nowMs()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function bump(hash, field, by)
  local left = redis.call('HINCRBY', hash, field, by)
  if left <= 0 then redis.call('HDEL', hash, field) end
end
-- takes a pending job out of its lane; the account leaves the ring when nothing is left
local function unqueue(jobId, lane, account, cost)
  local q = laneKey(lane, 'q:' .. account)
  redis.call('ZREM', q, jobId)
  redis.call('HDEL', S .. ':jobs', jobId)
  bump(laneKey(lane, 'count'), account, -1)
  bump(laneKey(lane, 'cost'), account, -cost)
  if redis.call('ZCARD', q) == 0 then
    redis.call('LREM', laneKey(lane, 'ring'), 0, account)
    redis.call('HDEL', laneKey(lane, 'deficit'), account)
    if redis.call('GET', laneKey(lane, 'turn')) == account then redis.call('DEL', laneKey(lane, 'turn')) end
  end
end
`;

/** ARGV: S, jobId, lane, account, cost. Adds a pending job; a second enqueue of the same id does nothing. */
export const ENQUEUE = `${HELPERS}
local jobId, lane, account, cost = ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5])
if redis.call('HEXISTS', S .. ':jobs', jobId) == 1 or redis.call('HEXISTS', S .. ':running', jobId) == 1 then return 0 end
local q = laneKey(lane, 'q:' .. account)
if redis.call('ZCARD', q) == 0 then redis.call('RPUSH', laneKey(lane, 'ring'), account) end
redis.call('ZADD', q, redis.call('INCR', S .. ':seq'), jobId)
redis.call('HSET', S .. ':jobs', jobId, lane .. ' ' .. account .. ' ' .. cost .. ' ' .. nowMs())
redis.call('HINCRBY', laneKey(lane, 'count'), account, 1)
redis.call('HINCRBY', laneKey(lane, 'cost'), account, cost)
return 1
`;

/** The execution window: what the live workers run at once, or the cap when the upstream takes fewer. */
export const WINDOW = `
local function windowSize(now)
  local window = 0
  for _, w in ipairs(redis.call('ZRANGEBYSCORE', S .. ':alive', now, '+inf')) do
    window = window + (tonumber(redis.call('HGET', S .. ':concurrency', w)) or 0)
  end
  local cap = tonumber(redis.call('GET', S .. ':cap'))
  if cap and cap < window then window = cap end
  return window
end
`;

/**
 * ARGV: S, account key prefix, jobId, lane, account, cost. Admission: while nothing of this queue
 * is pending and the window has room (and the account is under its cap), the job is handed to the
 * workers at once, as a dispatch would hand it (returns 2: add it to BullMQ waiting, not parked);
 * otherwise it is enqueued (1), or was already (0). Saves a dispatch and a promotion per job
 * whenever the upstream keeps up, which is most of the time.
 */
export const ADMIT = `${HELPERS}${WINDOW}
local A, jobId, lane, account, cost = ARGV[2], ARGV[3], ARGV[4], ARGV[5], tonumber(ARGV[6])
if redis.call('HEXISTS', S .. ':jobs', jobId) == 1 or redis.call('HEXISTS', S .. ':running', jobId) == 1 then return 0 end
local now = nowMs()
if redis.call('HLEN', S .. ':jobs') == 0 and redis.call('HLEN', S .. ':running') < windowSize(now) then
  local most = tonumber(redis.call('HGET', A .. account, 'maxInFlight'))
  if not (most and most > 0 and (tonumber(redis.call('HGET', S .. ':running:count', account)) or 0) >= most) then
    redis.call('HSET', S .. ':running', jobId, account .. ' ' .. cost .. ' ' .. lane .. ' ' .. now)
    redis.call('HINCRBY', S .. ':running:count', account, 1)
    redis.call('HINCRBY', S .. ':running:cost', account, cost)
    redis.call('ZADD', S .. ':dispatching', now, jobId)
    return 2
  end
end
local q = laneKey(lane, 'q:' .. account)
if redis.call('ZCARD', q) == 0 then redis.call('RPUSH', laneKey(lane, 'ring'), account) end
redis.call('ZADD', q, redis.call('INCR', S .. ':seq'), jobId)
redis.call('HSET', S .. ':jobs', jobId, lane .. ' ' .. account .. ' ' .. cost .. ' ' .. now)
redis.call('HINCRBY', laneKey(lane, 'count'), account, 1)
redis.call('HINCRBY', laneKey(lane, 'cost'), account, cost)
return 1
`;

/** ARGV: S, jobId. Takes a job out while it is still pending (its client left); 0 once dispatched. */
export const CANCEL = `${HELPERS}
local v = redis.call('HGET', S .. ':jobs', ARGV[2])
if not v then return 0 end
local f = split(v)
unqueue(ARGV[2], f[1], f[2], tonumber(f[3]))
return 1
`;

/**
 * ARGV: S, account key prefix, quantum, lanes (space-separated, highest first), most picks.
 *
 * Hands out as many jobs as the execution window has room for (jobs handed out whose upstream
 * calls are not over count against it): highest lane first; within a
 * lane, accounts take turns (deficit round robin in cost units, surplus variant): a turn credits
 * quantum x weight, the account sends jobs while its credit is positive, a job may overdraw it
 * (an image set of 15 then waits out its cost over the next turns), so turns are one job fine
 * and shares are exact in cost units over time. An account at its maxInFlight is skipped.
 * Returns a flat list: jobId, lane, account, cost, waited ms, for each pick.
 */
export const DISPATCH = `${HELPERS}${WINDOW}
local A, quantum, maxPicks = ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[5])
local lanes = split(ARGV[4])
local now = nowMs()
local free = math.min(windowSize(now) - redis.call('HLEN', S .. ':running'), maxPicks)
if free <= 0 then return {} end

local function capped(account)
  local most = tonumber(redis.call('HGET', A .. account, 'maxInFlight'))
  return most and most > 0 and (tonumber(redis.call('HGET', S .. ':running:count', account)) or 0) >= most
end
local function weight(account)
  local w = tonumber(redis.call('HGET', A .. account, 'weight'))
  if not w or w <= 0 then return 1 end
  return w
end

-- every account short of credit: give each the turns it needs at once, as if the rounds had run
local function skipAhead(lane, accounts)
  local deficits = laneKey(lane, 'deficit')
  local rounds
  for _, account in ipairs(accounts) do
    if not capped(account) then
      local need = math.floor(-(tonumber(redis.call('HGET', deficits, account)) or 0) / (quantum * weight(account)))
      if not rounds or need < rounds then rounds = need end
    end
  end
  if not rounds or rounds <= 0 then return end
  for _, account in ipairs(accounts) do
    if not capped(account) then redis.call('HINCRBYFLOAT', deficits, account, rounds * quantum * weight(account)) end
  end
end

local function pick(lane)
  local ring, turnKey, deficits = laneKey(lane, 'ring'), laneKey(lane, 'turn'), laneKey(lane, 'deficit')
  local visits, blocked = 0, 0
  -- a pass over the ring, a skip ahead, and a pass that is sure to send: bounded
  for _ = 1, 3 * redis.call('LLEN', ring) + 3 do
    local accounts = redis.call('LLEN', ring)
    if accounts == 0 then return nil end
    if visits >= accounts then
      if blocked >= accounts then return nil end
      skipAhead(lane, redis.call('LRANGE', ring, 0, -1))
      visits, blocked = 0, 0
    end
    local account = redis.call('LINDEX', ring, 0)
    local head = redis.call('ZRANGE', laneKey(lane, 'q:' .. account), 0, 0)[1]
    if not head then
      redis.call('LPOP', ring) -- cannot happen while the scripts keep their invariant; repaired anyway
    elseif capped(account) then
      visits, blocked = visits + 1, blocked + 1
      if redis.call('GET', turnKey) == account then redis.call('DEL', turnKey) end
      redis.call('LMOVE', ring, ring, 'LEFT', 'RIGHT')
    else
      local credit = tonumber(redis.call('HGET', deficits, account)) or 0
      if redis.call('GET', turnKey) ~= account then
        credit = tonumber(redis.call('HINCRBYFLOAT', deficits, account, quantum * weight(account)))
        redis.call('SET', turnKey, account)
      end
      if credit > 0 then
        local f = split(redis.call('HGET', S .. ':jobs', head))
        local cost = tonumber(f[3])
        redis.call('HINCRBYFLOAT', deficits, account, -cost)
        unqueue(head, lane, account, cost)
        redis.call('HSET', S .. ':running', head, account .. ' ' .. cost .. ' ' .. lane .. ' ' .. now)
        redis.call('HINCRBY', S .. ':running:count', account, 1)
        redis.call('HINCRBY', S .. ':running:cost', account, cost)
        redis.call('ZADD', S .. ':dispatching', now, head)
        return {head, lane, account, cost, now - tonumber(f[4])}
      end
      visits = visits + 1
      redis.call('DEL', turnKey)
      redis.call('LMOVE', ring, ring, 'LEFT', 'RIGHT')
    end
  end
  return nil
end

local out = {}
while free > 0 do
  local picked
  for _, lane in ipairs(lanes) do
    picked = pick(lane)
    if picked then break end
  end
  if not picked then break end
  for _, v in ipairs(picked) do out[#out + 1] = v end
  free = free - 1
end
return out
`;

/**
 * ARGV: S, jobId. A dispatched job is past its upstream calls (or ended: completed, failed for
 * good, refused): its place in the window and its account's share are free. Said twice, the
 * second time does nothing (0). 2 when jobs are pending (a dispatch has work to hand out), else 1.
 */
export const FINISH = `${HELPERS}
local jobId = ARGV[2]
redis.call('ZREM', S .. ':dispatching', jobId)
local v = redis.call('HGET', S .. ':running', jobId)
if not v then return 0 end
local f = split(v)
redis.call('HDEL', S .. ':running', jobId)
bump(S .. ':running:count', f[1], -1)
bump(S .. ':running:cost', f[1], -tonumber(f[2]))
local now = nowMs()
-- how long it held its place (entries written before that was kept have no start: -1)
local held = f[4] and (now - tonumber(f[4])) or -1
redis.call('ZADD', S .. ':recent', now, jobId .. ' ' .. f[2] .. ' ' .. held)
redis.call('ZREMRANGEBYRANK', S .. ':recent', 0, -201)
redis.call('ZREMRANGEBYSCORE', S .. ':recent', '-inf', now - 60000)
if redis.call('HLEN', S .. ':jobs') > 0 then return 2 end
return 1
`;

/** ARGV: S, lanes. Per lane, flat account/count/cost lists; then running count and cost per account. */
export const STATS = `${HELPERS}
local out = {}
for _, lane in ipairs(split(ARGV[2])) do
  out[#out + 1] = redis.call('HGETALL', laneKey(lane, 'count'))
  out[#out + 1] = redis.call('HGETALL', laneKey(lane, 'cost'))
end
out[#out + 1] = redis.call('HGETALL', S .. ':running:count')
out[#out + 1] = redis.call('HGETALL', S .. ':running:cost')
out[#out + 1] = redis.call('ZCARD', S .. ':dispatching')
return out
`;

/** ARGV: S, workerId, concurrency, ttl ms, cap (0 = none). A worker says it is alive and what it runs. */
export const HEARTBEAT = `${HELPERS}
local now = nowMs()
redis.call('ZADD', S .. ':alive', now + tonumber(ARGV[4]), ARGV[2])
redis.call('HSET', S .. ':concurrency', ARGV[2], ARGV[3])
for _, gone in ipairs(redis.call('ZRANGEBYSCORE', S .. ':alive', '-inf', now)) do
  redis.call('ZREM', S .. ':alive', gone)
  redis.call('HDEL', S .. ':concurrency', gone)
end
if tonumber(ARGV[5]) > 0 then redis.call('SET', S .. ':cap', ARGV[5]) else redis.call('DEL', S .. ':cap') end
return 1
`;

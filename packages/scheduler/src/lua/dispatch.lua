-- After helpers.lua and window.lua. ARGV: S, account key prefix, quantum, lanes (space-separated,
-- highest first), most picks.
--
-- Hands out as many jobs as the execution window has room for (jobs handed out whose upstream
-- calls are not over count against it): highest lane first; within a lane, accounts take turns
-- (deficit round robin in cost units, surplus variant): a turn credits quantum x weight, the
-- account sends jobs while its credit is positive, a job may overdraw it (an image set of 15 then
-- waits out its cost over the next turns), so turns are one job fine and shares are exact in cost
-- units over time. An account at its maxInFlight is skipped.
-- Returns a flat list: jobId, lane, account, cost, waited ms, for each pick.
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

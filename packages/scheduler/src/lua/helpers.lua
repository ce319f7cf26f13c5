-- The preamble of every scheduler script (commands.ts has the layout): S is ARGV[1].
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
-- one job fewer for an account: its count and its cost go down together, and when its count is
-- spent so is its cost (every job's cost was added with it): both fields go, with no sum of the cost
local function oneFewer(countHash, costHash, account, cost)
  if redis.call('HINCRBY', countHash, account, -1) <= 0 then
    redis.call('HDEL', countHash, account)
    redis.call('HDEL', costHash, account)
  else
    redis.call('HINCRBY', costHash, account, -cost)
  end
end
-- takes a pending job out of its lane; the account leaves the ring when nothing is left
local function unqueue(jobId, lane, account, cost)
  local q = laneKey(lane, 'q:' .. account)
  redis.call('ZREM', q, jobId)
  redis.call('HDEL', S .. ':jobs', jobId)
  oneFewer(laneKey(lane, 'count'), laneKey(lane, 'cost'), account, cost)
  if redis.call('ZCARD', q) == 0 then
    redis.call('LREM', laneKey(lane, 'ring'), 0, account)
    redis.call('HDEL', laneKey(lane, 'deficit'), account)
    if redis.call('GET', laneKey(lane, 'turn')) == account then redis.call('DEL', laneKey(lane, 'turn')) end
  end
end

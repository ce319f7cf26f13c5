-- The execution window: what the live workers run at once, or the cap when the upstream takes fewer.
-- Kept in S:window until the first live worker's heartbeat lapses (heartbeat.lua drops it whenever
-- a worker says what it runs, or the cap changes), so an admission reads one key, not the workers.
local function windowSize(now)
  local kept = tonumber(redis.call('GET', S .. ':window'))
  if kept then return kept end
  local window, lapse = 0, nil
  local alive = redis.call('ZRANGEBYSCORE', S .. ':alive', now, '+inf', 'WITHSCORES')
  for i = 1, #alive, 2 do
    window = window + (tonumber(redis.call('HGET', S .. ':concurrency', alive[i])) or 0)
    local expiry = tonumber(alive[i + 1])
    if lapse == nil or expiry < lapse then lapse = expiry end
  end
  local cap = tonumber(redis.call('GET', S .. ':cap'))
  if cap and cap < window then window = cap end
  if lapse and lapse > now then redis.call('SET', S .. ':window', window, 'PX', lapse - now) end
  return window
end

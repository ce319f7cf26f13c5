-- The execution window: what the live workers run at once, or the cap when the upstream takes fewer.
local function windowSize(now)
  local window = 0
  for _, w in ipairs(redis.call('ZRANGEBYSCORE', S .. ':alive', now, '+inf')) do
    window = window + (tonumber(redis.call('HGET', S .. ':concurrency', w)) or 0)
  end
  local cap = tonumber(redis.call('GET', S .. ':cap'))
  if cap and cap < window then window = cap end
  return window
end

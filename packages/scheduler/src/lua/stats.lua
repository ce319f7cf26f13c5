-- After helpers.lua. ARGV: S, lanes. Per lane, flat account/count and account/cost lists; then
-- running count and cost per account, flat; then how many jobs are being promoted.
local out = {}
for _, lane in ipairs(split(ARGV[2])) do
  out[#out + 1] = redis.call('HGETALL', laneKey(lane, 'count'))
  out[#out + 1] = redis.call('HGETALL', laneKey(lane, 'cost'))
end
out[#out + 1] = redis.call('HGETALL', S .. ':running:count')
out[#out + 1] = redis.call('HGETALL', S .. ':running:cost')
out[#out + 1] = redis.call('ZCARD', S .. ':dispatching')
return out

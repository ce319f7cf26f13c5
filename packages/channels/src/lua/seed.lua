-- A config channel as this worker's config has it: the fields config owns are written, the ones
-- the admin API may have changed (weight, capacity, models, disabled...) only when missing; a
-- disable that a 401/403 caused is lifted (a restart is how a fixed key reaches the workers).
-- KEYS: the channel, the set of ids, the version. ARGV: id, n, n config pairs, then default pairs.
-- Returns 1.
local n = tonumber(ARGV[2])
local configured = {}
for i = 3, 2 + 2 * n do configured[#configured + 1] = ARGV[i] end
redis.call('HSET', KEYS[1], unpack(configured))
for i = 3 + 2 * n, #ARGV, 2 do redis.call('HSETNX', KEYS[1], ARGV[i], ARGV[i + 1]) end
local reason = redis.call('HGET', KEYS[1], 'disabledReason') or ''
if string.sub(reason, 1, 5) == 'auth:' then redis.call('HSET', KEYS[1], 'disabled', '0', 'disabledReason', '') end
redis.call('SADD', KEYS[2], ARGV[1])
redis.call('INCR', KEYS[3])
return 1

-- Marks the moment the upstream call begins: from then on the job can no longer be cancelled
-- for free. Repeats (a retry, a retry after the charge) pass; a cancelled job does not, nor a
-- further call of a begun job its owner asked to stop (stop.lua).
-- KEYS: reservation. Returns 1 when the call may begin, 0 when it must not (cancelled), 2 when
-- the job was stopped: what it delivered before stays, nothing more is asked upstream.
local r = redis.call('HMGET', KEYS[1], 'state', 'stop')
local state = r[1]
if state == 'reserved' then redis.call('HSET', KEYS[1], 'state', 'started') return 1 end
if state == 'started' and r[2] then return 2 end
if state == 'started' or state == 'settled' then return 1 end
return 0

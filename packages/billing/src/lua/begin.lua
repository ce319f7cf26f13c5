-- Marks the moment the upstream call begins: from then on the job can no longer be cancelled
-- for free. Repeats (a retry, a retry after the charge) pass; a cancelled job does not.
-- KEYS: reservation. Returns 1 when the call may begin, 0 when it must not.
local state = redis.call('HGET', KEYS[1], 'state')
if state == 'reserved' then redis.call('HSET', KEYS[1], 'state', 'started') return 1 end
if state == 'started' or state == 'settled' then return 1 end
return 0

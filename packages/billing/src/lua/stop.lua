-- Its owner stops a job whose upstream call began: no further call may begin (begin.lua answers
-- 2), while what was asked already runs to its end and is charged as delivered.
-- KEYS: reservation. Returns 1 when the job is running and now stopping (or was already), 0
-- when its reservation is closed or was never begun (a job not begun is cancelled instead).
if redis.call('HGET', KEYS[1], 'state') ~= 'started' then return 0 end
redis.call('HSET', KEYS[1], 'stop', '1')
return 1

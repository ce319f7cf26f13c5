-- A process follows a job it did not add: its inbox joins the job's waiter set, and the job's
-- reservation says it is followed, so that the begin and the end, which read the reservation
-- anyway, look at the set only for a job someone follows. A reservation that no longer exists
-- (the job ended long ago) is not made again.
-- KEYS: the waiter set, the job's reservation. ARGV: the inbox, the set's time to live (s).
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[2]))
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('HSET', KEYS[2], 'followed', '1') end
return 1

-- A job's progress written into its BullMQ hash as BullMQ's own updateProgress does, but without
-- the event nobody reads, so it can go to Redis with other steps in one round trip. A job that is
-- gone (removed) is not brought back.
-- KEYS: the job's hash. ARGV: the progress as JSON. Returns 1 written, 0 no such job.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'progress', ARGV[1])
return 1

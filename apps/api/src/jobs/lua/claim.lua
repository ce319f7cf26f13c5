-- An Idempotency-Key's record: the first request names the job, a repeat with the same fingerprint
-- gets that job, one with another fingerprint a conflict.
-- KEYS: the record. ARGV: fingerprint, jobId, ttl seconds, ms now.
-- Returns {'fresh', jobId, claimedAt}, {'existing', jobId, claimedAt} or {'conflict', '', ''}.
local existing = redis.call('HMGET', KEYS[1], 'fingerprint', 'jobId', 'claimedAt')
if existing[1] then
  if existing[1] == ARGV[1] then return {'existing', existing[2], existing[3]} end
  return {'conflict', '', ''}
end
redis.call('HSET', KEYS[1], 'fingerprint', ARGV[1], 'jobId', ARGV[2], 'claimedAt', ARGV[4])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
return {'fresh', ARGV[2], ARGV[4]}

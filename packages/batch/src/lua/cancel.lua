-- Asks a running batch to stop. KEYS: batch. ARGV: unix seconds.
-- Returns the status it has now ('' when there is no such batch).
local status = redis.call('HGET', KEYS[1], 'status')
if status == 'in_progress' or status == 'validating' then
  redis.call('HSET', KEYS[1], 'status', 'cancelling', 'cancelling_at', ARGV[1])
  return 'cancelling'
end
return status or ''

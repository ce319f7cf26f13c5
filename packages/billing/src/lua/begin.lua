-- Marks the moment the upstream call begins: from then on the job can no longer be cancelled
-- for free. Repeats (a retry, a retry after the charge) pass; a cancelled job does not, nor a
-- further call of a begun job its owner asked to stop (stop.lua).
-- KEYS: reservation, the set of inboxes (streams) following the job. ARGV: jobId ('' tells no
-- one), the inboxes' approximate maximum length.
-- Returns 1 when the call may begin, 0 when it must not (cancelled), 2 when the job was stopped:
-- what it delivered before stays, nothing more is asked upstream. A call that may begin is told
-- in the same step, as a 'started' notice (the shape of @relay/life's notices), to every inbox
-- of the set that still exists: those following the job's events hear it began, no round trip more.
local function began()
  if ARGV[1] ~= '' then
    for _, inbox in ipairs(redis.call('SMEMBERS', KEYS[2])) do
      if redis.call('EXISTS', inbox) == 1 then
        redis.call('XADD', inbox, 'MAXLEN', '~', ARGV[2], '*', 't', 'started', 'j', ARGV[1], 'd', '')
      end
    end
  end
  return 1
end
local r = redis.call('HMGET', KEYS[1], 'state', 'stop')
local state = r[1]
if state == 'reserved' then redis.call('HSET', KEYS[1], 'state', 'started') return began() end
if state == 'started' and r[2] then return 2 end
if state == 'started' or state == 'settled' then return began() end
return 0

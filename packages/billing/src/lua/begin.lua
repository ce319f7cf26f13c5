-- Marks the moment the upstream call begins: from then on the job can no longer be cancelled
-- for free. Repeats (a retry, a retry after the charge) pass; a cancelled job does not, nor a
-- further call of a begun job its owner asked to stop (stop.lua).
-- KEYS: reservation, the set of inboxes (streams) following the job. ARGV: jobId ('' tells no
-- one), the inboxes' approximate maximum length, a lease token ('' for none), then the lease sets
-- (zsets, in the same hash slot) one of which holds that token when the call has its channel.
-- With a token the begin rides in the same round trip as the channel's pick (channels' pick.lua,
-- sent just before it on the same connection): a job whose pick leased nothing has not begun and
-- stays cancellable for free, while a cancelled or stopped one is told so at once, lease or not.
-- A pick in the same script leaves its lease in `shared` (lua-command.ts): no read then.
-- Returns 1 when the call may begin, 0 when it must not (cancelled), 2 when the job was stopped:
-- what it delivered before stays, nothing more is asked upstream; 3 when no lease holds the token
-- (the pick found no channel: nothing changed). A call that may begin is told in the same step, as
-- a 'started' notice (the shape of @relay/life's notices, published too), to every inbox of the
-- set that still exists: those following the job's events hear it began, no round trip more.
local function began(followed)
  -- only a followed job's set is looked at (@relay/life's follow.lua marks the reservation)
  if ARGV[1] ~= '' and followed then
    for _, inbox in ipairs(redis.call('SMEMBERS', KEYS[2])) do
      -- NOMKSTREAM: an inbox that no longer exists is not made again (nil)
      local id = redis.call('XADD', inbox, 'NOMKSTREAM', 'MAXLEN', '~', ARGV[2], '*', 't', 'started', 'j', ARGV[1], 'd', '')
      if id then redis.call('PUBLISH', inbox, id .. '\nstarted\n' .. ARGV[1] .. '\n') end
    end
  end
  return 1
end
local function leased()
  if ARGV[3] == '' or shared.lease == ARGV[3] then return true end
  for i = 4, #ARGV do
    if redis.call('ZSCORE', ARGV[i], ARGV[3]) then return true end
  end
  return false
end
local r = redis.call('HMGET', KEYS[1], 'state', 'stop', 'followed')
local state = r[1]
if state == 'started' and r[2] then return 2 end
if state ~= 'reserved' and state ~= 'started' and state ~= 'settled' then return 0 end
if not leased() then return 3 end
if state == 'reserved' then redis.call('HSET', KEYS[1], 'state', 'started') end
return began(r[3] == '1')

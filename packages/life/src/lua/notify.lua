-- A job's end (or a delivered part) to the creator's inbox and every inbox in the waiter set,
-- each only if it still exists: an inbox whose process died expires and is never made again
-- by a notice. A final notice drops the set. One round trip, whatever the number of waiters.
-- Each notice is also published on its inbox's channel ("id\ntype\njobId\ndata"): the api
-- process hears it with no read of its own, and reads the stream only to catch up after its
-- subscription was down (@relay/api's inbox).
-- The set's inboxes are keys this script does not declare: on a cluster that holds only because
-- every inbox shares the prefix's hash tag with the waiter set (one slot).
local sent = {}
-- a settlement in the same script read whether anyone follows the job (billing's close.lua,
-- `shared`: lua-command.ts); when it said no one does, the set is not looked at
local followed = shared.followed and shared.followed[ARGV[2]]
local targets = followed == false and {} or redis.call('SMEMBERS', KEYS[1])
local members = #targets
if KEYS[2] ~= KEYS[1] then table.insert(targets, KEYS[2]) end
for _, inbox in ipairs(targets) do
  if not sent[inbox] then
    sent[inbox] = true
    -- NOMKSTREAM: an inbox that no longer exists is not made again (nil)
    local id = redis.call('XADD', inbox, 'NOMKSTREAM', 'MAXLEN', '~', ARGV[5], '*', 't', ARGV[1], 'j', ARGV[2], 'd', ARGV[3])
    if id then redis.call('PUBLISH', inbox, id .. '\n' .. ARGV[1] .. '\n' .. ARGV[2] .. '\n' .. ARGV[3]) end
  end
end
-- (a set without members is no key: nothing to drop)
if ARGV[4] == '1' and members > 0 then redis.call('DEL', KEYS[1]) end
return 0

-- Closes a reservation: charges min(charge, reserved amount) and gives back the rest.
-- A release is a settlement with charge 0; a cancel is a release that only happens before
-- the job began. A settlement also adds to the usage aggregates (daily per account, daily for
-- the whole relay: daily.ts; and the account's month, kept in the account's own hash), in the
-- same step, so they never disagree with the ledger.
-- KEYS: reservation, account, ledger, open reservations, account's day, relay's day.
-- ARGV: type (settle|release|cancel), charge, units, retentionSeconds, unit count (a number),
-- aggregate retention in seconds, the channel(s) that served the job, the month (YYYY-MM).
-- Returns {status, balance, reserved, charged}: 1 closed now, 0 closed before (or begun, for a
-- cancel; `charged` is what it was charged), -1 no such reservation.
local r = redis.call('HMGET', KEYS[1], 'state', 'charged', 'amount', 'accountId', 'keyId', 'jobId', 'model', 'user', 'followed')
local state = r[1]
if not state then return {-1, 0, 0, 0} end
-- whether a process follows the job (@relay/life's follow.lua), for its end's notice in the same
-- script (notify.lua; `shared`: lua-command.ts)
shared.followed = shared.followed or {}
shared.followed[r[6]] = r[9] == '1'
local open = state == 'reserved' or (state == 'started' and ARGV[1] ~= 'cancel')
if not open then return {0, 0, 0, tonumber(r[2] or '0')} end
local amount = tonumber(r[3])
local charge = math.min(tonumber(ARGV[2]), amount)
local refund = amount - charge
-- the account's sums read and written in one command each, not an HINCRBY apiece: every
-- figure stays below 2^53 (the ceiling, docs/money.md), where Lua's numbers are exact
local sums = redis.call('HMGET', KEYS[2], 'balance', 'reserved', 'spent', 'month', 'monthSpent')
local balance = tonumber(sums[1] or '0') + refund
local reserved = tonumber(sums[2] or '0') - amount
local written = {'balance', balance, 'reserved', reserved, 'spent', tonumber(sums[3] or '0') + charge}
-- The month's spend lives beside the balance, one figure for the month it names: a settlement
-- of a later month starts it again; one dated before that month (a clock behind at midnight)
-- counts in the account's sums but not in a month that is over.
if ARGV[1] == 'settle' then
  local month = sums[4]
  if month == ARGV[8] then
    written[#written + 1] = 'monthSpent'; written[#written + 1] = tonumber(sums[5] or '0') + charge
  elseif not month or month < ARGV[8] then
    written[#written + 1] = 'month'; written[#written + 1] = ARGV[8]
    written[#written + 1] = 'monthSpent'; written[#written + 1] = charge
  end
end
redis.call('HSET', KEYS[2], unpack(written))
local closed = ARGV[1] == 'settle' and 'settled' or 'released'
local entry = ARGV[1] == 'settle' and 'settle' or 'release'
redis.call('HSET', KEYS[1], 'state', closed, 'charged', charge, 'chargedUnits', ARGV[3])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[4]))
redis.call('ZREM', KEYS[4], r[6])
local fields = {'type', entry, 'accountId', r[4], 'keyId', r[5], 'jobId', r[6], 'model', r[7],
  'units', ARGV[3], 'amount', refund, 'charged', charge, 'balance', balance, 'reserved', reserved, 'user', r[8] or ''}
if ARGV[7] and ARGV[7] ~= '' then fields[#fields + 1] = 'channel'; fields[#fields + 1] = ARGV[7] end
redis.call('XADD', KEYS[3], '*', unpack(fields))
if ARGV[1] == 'settle' then
  -- A day's expiry is set when its first job is counted: a day's keys are written on that day only.
  local ttl = tonumber(ARGV[6])
  local model = r[7]
  local fields = {'charged:' .. model, 'units:' .. model, 'jobs:' .. model}
  for i = 5, 6 do
    local day = redis.call('HMGET', KEYS[i], unpack(fields))
    local jobs = tonumber(day[3] or '0')
    redis.call('HSET', KEYS[i], fields[1], tonumber(day[1] or '0') + charge,
      fields[2], tonumber(day[2] or '0') + tonumber(ARGV[5]), fields[3], jobs + 1)
    if jobs == 0 then redis.call('EXPIRE', KEYS[i], ttl) end
  end
end
return {1, balance, reserved, charge}

-- Closes a reservation: charges min(charge, reserved amount) and gives back the rest.
-- A release is a settlement with charge 0; a cancel is a release that only happens before
-- the job began. A settlement also adds to the usage aggregates (daily per account, daily for
-- the whole relay, monthly per account: daily.ts), in the same step, so they never disagree
-- with the ledger.
-- KEYS: reservation, account, ledger, open reservations, account's day, relay's day, month.
-- ARGV: type (settle|release|cancel), charge, units, retentionSeconds, unit count (a number),
-- aggregate retention in seconds, the channel(s) that served the job.
-- Returns {status, balance, reserved, charged}: 1 closed now, 0 closed before (or begun, for a
-- cancel; `charged` is what it was charged), -1 no such reservation.
local r = redis.call('HMGET', KEYS[1], 'state', 'charged', 'amount', 'accountId', 'keyId', 'jobId', 'model', 'user')
local state = r[1]
if not state then return {-1, 0, 0, 0} end
local open = state == 'reserved' or (state == 'started' and ARGV[1] ~= 'cancel')
if not open then return {0, 0, 0, tonumber(r[2] or '0')} end
local amount = tonumber(r[3])
local charge = math.min(tonumber(ARGV[2]), amount)
local refund = amount - charge
local balance = redis.call('HINCRBY', KEYS[2], 'balance', refund)
local reserved = redis.call('HINCRBY', KEYS[2], 'reserved', 0 - amount)
redis.call('HINCRBY', KEYS[2], 'spent', charge)
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
  -- An aggregate's expiry is set when its first job is counted: a day's keys are written on
  -- that day only. The month is counted first, so that the first job of each of its days (its
  -- own first job among them) sets the month's expiry again.
  local ttl = tonumber(ARGV[6])
  local model = r[7]
  redis.call('HINCRBY', KEYS[7], r[4], charge)
  for i = 5, 6 do
    redis.call('HINCRBY', KEYS[i], 'charged:' .. model, charge)
    redis.call('HINCRBY', KEYS[i], 'units:' .. model, tonumber(ARGV[5]))
    if redis.call('HINCRBY', KEYS[i], 'jobs:' .. model, 1) == 1 then
      redis.call('EXPIRE', KEYS[i], ttl)
      if i == 6 then redis.call('EXPIRE', KEYS[7], ttl) end
    end
  end
end
return {1, balance, reserved, charge}

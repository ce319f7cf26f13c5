/**
 * Every balance change is one Lua script: the check, the change and its ledger entry happen
 * atomically, so concurrent requests can never overdraw an account and a repeated settlement
 * (a worker retry, a duplicate event) finds the reservation already closed and does nothing.
 *
 * Account hash fields: balance (available micro-units), reserved (held for running jobs),
 * spent (lifetime charges). Ledger entries' `amount` is the change of `balance`.
 *
 * Negations are written `0 - x`: Lua's `-x` of a zero is -0, which Redis refuses as an integer
 * (a batch's hold can be carved down to nothing, or hold nothing at all).
 */

/**
 * KEYS: account, reservation, ledger, open reservations (a sorted set by creation time, so a
 * reservation whose job never made it into the queue can be found and released).
 * ARGV: amount, accountId, keyId, jobId, model, units, user ('' for none), tracked ('1': in the
 * open set; a batch's hold is not, its batch releases it).
 */
export const RESERVE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return {-1, 0, 0} end
if redis.call('EXISTS', KEYS[2]) == 1 then
  return {2, tonumber(redis.call('HGET', KEYS[1], 'balance') or '0'), tonumber(redis.call('HGET', KEYS[1], 'reserved') or '0')}
end
local amount = tonumber(ARGV[1])
local balance = tonumber(redis.call('HGET', KEYS[1], 'balance') or '0')
if balance < amount then return {0, balance, tonumber(redis.call('HGET', KEYS[1], 'reserved') or '0')} end
balance = redis.call('HINCRBY', KEYS[1], 'balance', 0 - amount)
local reserved = redis.call('HINCRBY', KEYS[1], 'reserved', amount)
redis.call('HSET', KEYS[2], 'accountId', ARGV[2], 'keyId', ARGV[3], 'jobId', ARGV[4], 'model', ARGV[5],
  'amount', amount, 'units', ARGV[6], 'state', 'reserved', 'user', ARGV[7])
redis.call('XADD', KEYS[3], '*', 'type', 'reserve', 'accountId', ARGV[2], 'keyId', ARGV[3], 'jobId', ARGV[4],
  'model', ARGV[5], 'units', ARGV[6], 'amount', 0 - amount, 'charged', 0, 'balance', balance, 'reserved', reserved, 'user', ARGV[7])
if ARGV[8] == '1' then
  local t = redis.call('TIME')
  redis.call('ZADD', KEYS[4], tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000), ARGV[4])
end
return {1, balance, reserved}
`;

/**
 * A batch line's reservation, carved out of its batch's hold: the money moves from the hold to the
 * line, so the balance does not change and no ledger entry is written. What the hold no longer
 * covers (prices changed since the batch was made, or the hold is closed) is reserved from the
 * balance, with its entry. From then on the line's reservation is an ordinary one (begin, settle,
 * release, the sweeper). KEYS: hold, line reservation, account, ledger, open reservations.
 * ARGV: amount, accountId, keyId, jobId, model, units, user. Returns {1, 'reserved'} when made,
 * {2, state} when the line had one already, {0, ''} when the balance cannot cover the shortfall.
 */
export const CARVE = `
if redis.call('EXISTS', KEYS[2]) == 1 then return {2, redis.call('HGET', KEYS[2], 'state')} end
local amount = tonumber(ARGV[1])
local fromHold = 0
if redis.call('HGET', KEYS[1], 'state') == 'reserved' then
  fromHold = math.min(amount, tonumber(redis.call('HGET', KEYS[1], 'amount') or '0'))
end
local short = amount - fromHold
if short > 0 then
  local balance = tonumber(redis.call('HGET', KEYS[3], 'balance') or '0')
  if balance < short then return {0, ''} end
  balance = redis.call('HINCRBY', KEYS[3], 'balance', -short)
  local reserved = redis.call('HINCRBY', KEYS[3], 'reserved', short)
  redis.call('XADD', KEYS[4], '*', 'type', 'reserve', 'accountId', ARGV[2], 'keyId', ARGV[3], 'jobId', ARGV[4],
    'model', ARGV[5], 'units', ARGV[6], 'amount', -short, 'charged', 0, 'balance', balance, 'reserved', reserved, 'user', ARGV[7])
end
if fromHold > 0 then redis.call('HINCRBY', KEYS[1], 'amount', -fromHold) end
redis.call('HSET', KEYS[2], 'accountId', ARGV[2], 'keyId', ARGV[3], 'jobId', ARGV[4], 'model', ARGV[5],
  'amount', amount, 'units', ARGV[6], 'state', 'reserved', 'user', ARGV[7])
local t = redis.call('TIME')
redis.call('ZADD', KEYS[5], tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000), ARGV[4])
return {1, 'reserved'}
`;

/**
 * Marks the moment the upstream call begins: from then on the job can no longer be cancelled
 * for free. Repeats (a retry, a retry after the charge) pass; a cancelled job does not.
 * KEYS: reservation.
 */
export const BEGIN = `
local state = redis.call('HGET', KEYS[1], 'state')
if state == 'reserved' then redis.call('HSET', KEYS[1], 'state', 'started') return 1 end
if state == 'started' or state == 'settled' then return 1 end
return 0
`;

/**
 * Closes a reservation: charges min(charge, reserved amount) and gives back the rest.
 * A release is a settlement with charge 0; a cancel is a release that only happens before
 * the job began. A settlement also adds to the usage aggregates (daily per account, daily for
 * the whole relay, monthly per account: daily.ts), in the same step, so they never disagree
 * with the ledger. KEYS: reservation, account, ledger, open reservations, account's day,
 * relay's day, month. ARGV: type (settle|release|cancel), charge, units, retentionSeconds,
 * unit count (a number), aggregate retention in seconds, the channel(s) that served the job.
 */
export const CLOSE = `
local state = redis.call('HGET', KEYS[1], 'state')
if not state then return {-1, 0, 0, 0} end
local open = state == 'reserved' or (state == 'started' and ARGV[1] ~= 'cancel')
if not open then return {0, 0, 0, tonumber(redis.call('HGET', KEYS[1], 'charged') or '0')} end
local amount = tonumber(redis.call('HGET', KEYS[1], 'amount'))
local charge = math.min(tonumber(ARGV[2]), amount)
local refund = amount - charge
local balance = redis.call('HINCRBY', KEYS[2], 'balance', refund)
local reserved = redis.call('HINCRBY', KEYS[2], 'reserved', 0 - amount)
redis.call('HINCRBY', KEYS[2], 'spent', charge)
local closed = ARGV[1] == 'settle' and 'settled' or 'released'
local entry = ARGV[1] == 'settle' and 'settle' or 'release'
redis.call('HSET', KEYS[1], 'state', closed, 'charged', charge, 'chargedUnits', ARGV[3])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[4]))
redis.call('ZREM', KEYS[4], redis.call('HGET', KEYS[1], 'jobId'))
local r = redis.call('HMGET', KEYS[1], 'accountId', 'keyId', 'jobId', 'model', 'user')
local fields = {'type', entry, 'accountId', r[1], 'keyId', r[2], 'jobId', r[3], 'model', r[4],
  'units', ARGV[3], 'amount', refund, 'charged', charge, 'balance', balance, 'reserved', reserved, 'user', r[5] or ''}
if ARGV[7] and ARGV[7] ~= '' then fields[#fields + 1] = 'channel'; fields[#fields + 1] = ARGV[7] end
redis.call('XADD', KEYS[3], '*', unpack(fields))
if ARGV[1] == 'settle' then
  local ttl = tonumber(ARGV[6])
  for i = 5, 6 do
    redis.call('HINCRBY', KEYS[i], 'charged:' .. r[4], charge)
    redis.call('HINCRBY', KEYS[i], 'units:' .. r[4], tonumber(ARGV[5]))
    redis.call('HINCRBY', KEYS[i], 'jobs:' .. r[4], 1)
    redis.call('EXPIRE', KEYS[i], ttl)
  end
  redis.call('HINCRBY', KEYS[7], r[1], charge)
  redis.call('EXPIRE', KEYS[7], ttl)
end
return {1, balance, reserved, charge}
`;

/** KEYS: account, ledger. ARGV: amount (may be negative, never below zero), accountId, note. */
export const CREDIT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return {-1, 0, 0} end
local amount = tonumber(ARGV[1])
local balance = tonumber(redis.call('HGET', KEYS[1], 'balance') or '0')
local reserved = tonumber(redis.call('HGET', KEYS[1], 'reserved') or '0')
if balance + amount < 0 then return {0, balance, reserved} end
balance = redis.call('HINCRBY', KEYS[1], 'balance', amount)
redis.call('XADD', KEYS[2], '*', 'type', 'credit', 'accountId', ARGV[2], 'keyId', '', 'jobId', '', 'model', '',
  'units', '', 'note', ARGV[3], 'amount', amount, 'charged', 0, 'balance', balance, 'reserved', reserved)
return {1, balance, reserved}
`;

/** KEYS: open reservations. ARGV: age in ms, limit. The ids of reservations older than the age. */
export const OPEN_LONGER_THAN = `
local t = redis.call('TIME')
local cutoff = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) - tonumber(ARGV[1])
return redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', cutoff, 'LIMIT', 0, tonumber(ARGV[2]))
`;

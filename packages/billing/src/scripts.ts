/**
 * Every balance change is one Lua script: the check, the change and its ledger entry happen
 * atomically, so concurrent requests can never overdraw an account and a repeated settlement
 * (a worker retry, a duplicate event) finds the reservation already closed and does nothing.
 *
 * Account hash fields: balance (available micro-units), reserved (held for running jobs),
 * spent (lifetime charges). Ledger entries' `amount` is the change of `balance`.
 */

/**
 * KEYS: account, reservation, ledger, open reservations (a sorted set by creation time, so a
 * reservation whose job never made it into the queue can be found and released).
 * ARGV: amount, accountId, keyId, jobId, model, units, user ('' for none).
 */
export const RESERVE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return {-1, 0, 0} end
if redis.call('EXISTS', KEYS[2]) == 1 then
  return {2, tonumber(redis.call('HGET', KEYS[1], 'balance') or '0'), tonumber(redis.call('HGET', KEYS[1], 'reserved') or '0')}
end
local amount = tonumber(ARGV[1])
local balance = tonumber(redis.call('HGET', KEYS[1], 'balance') or '0')
if balance < amount then return {0, balance, tonumber(redis.call('HGET', KEYS[1], 'reserved') or '0')} end
balance = redis.call('HINCRBY', KEYS[1], 'balance', -amount)
local reserved = redis.call('HINCRBY', KEYS[1], 'reserved', amount)
redis.call('HSET', KEYS[2], 'accountId', ARGV[2], 'keyId', ARGV[3], 'jobId', ARGV[4], 'model', ARGV[5],
  'amount', amount, 'units', ARGV[6], 'state', 'reserved', 'user', ARGV[7])
redis.call('XADD', KEYS[3], '*', 'type', 'reserve', 'accountId', ARGV[2], 'keyId', ARGV[3], 'jobId', ARGV[4],
  'model', ARGV[5], 'units', ARGV[6], 'amount', -amount, 'charged', 0, 'balance', balance, 'reserved', reserved, 'user', ARGV[7])
local t = redis.call('TIME')
redis.call('ZADD', KEYS[4], tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000), ARGV[4])
return {1, balance, reserved}
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
 * unit count (a number), aggregate retention in seconds.
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
local reserved = redis.call('HINCRBY', KEYS[2], 'reserved', -amount)
redis.call('HINCRBY', KEYS[2], 'spent', charge)
local closed = ARGV[1] == 'settle' and 'settled' or 'released'
local entry = ARGV[1] == 'settle' and 'settle' or 'release'
redis.call('HSET', KEYS[1], 'state', closed, 'charged', charge, 'chargedUnits', ARGV[3])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[4]))
redis.call('ZREM', KEYS[4], redis.call('HGET', KEYS[1], 'jobId'))
local r = redis.call('HMGET', KEYS[1], 'accountId', 'keyId', 'jobId', 'model', 'user')
redis.call('XADD', KEYS[3], '*', 'type', entry, 'accountId', r[1], 'keyId', r[2], 'jobId', r[3], 'model', r[4],
  'units', ARGV[3], 'amount', refund, 'charged', charge, 'balance', balance, 'reserved', reserved, 'user', r[5] or '')
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

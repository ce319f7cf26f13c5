-- A batch line's reservation, carved out of its batch's hold: the money moves from the hold to the
-- line, so the balance does not change and no ledger entry is written. What the hold no longer
-- covers (prices changed since the batch was made, or the hold is closed) is reserved from the
-- balance, with its entry. From then on the line's reservation is an ordinary one (begin, settle,
-- release, the sweeper).
-- KEYS: hold, line reservation, account, ledger, open reservations.
-- ARGV: amount, accountId, keyId, jobId, model, units, user.
-- Returns {1, 'reserved'} when made, {2, state} when the line had one already, {0, ''} when the
-- balance cannot cover the shortfall.
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

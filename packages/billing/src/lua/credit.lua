-- Adds to (or, negative, takes from) an account's balance, with its ledger entry: never below
-- zero, and a credit never takes the account past the ceiling (MAX_MICRO_UNITS: its balance and
-- what is reserved from it, together), so every figure stays an exact integer.
-- KEYS: account, ledger. ARGV: amount, accountId, note, ceiling.
-- Returns {status, balance, reserved}: 1 done, 0 it would go below zero, -1 no such account,
-- -2 it would pass the ceiling (nothing changed).
if redis.call('EXISTS', KEYS[1]) == 0 then return {-1, 0, 0} end
local amount = tonumber(ARGV[1])
local ceiling = tonumber(ARGV[4])
local balance = tonumber(redis.call('HGET', KEYS[1], 'balance') or '0')
local reserved = tonumber(redis.call('HGET', KEYS[1], 'reserved') or '0')
if balance + amount < 0 then return {0, balance, reserved} end
if amount > 0 and (amount > ceiling or balance + reserved + amount > ceiling) then return {-2, balance, reserved} end
balance = redis.call('HINCRBY', KEYS[1], 'balance', amount)
redis.call('XADD', KEYS[2], '*', 'type', 'credit', 'accountId', ARGV[2], 'keyId', '', 'jobId', '', 'model', '',
  'units', '', 'note', ARGV[3], 'amount', amount, 'charged', 0, 'balance', balance, 'reserved', reserved)
return {1, balance, reserved}

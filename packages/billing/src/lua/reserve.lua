-- Holds `amount` of an account's balance for a job, with its ledger entry.
-- KEYS: account, reservation, ledger, open reservations (a sorted set by creation time, so a
-- reservation whose job never made it into the queue can be found and released).
-- ARGV: amount, accountId, keyId, jobId, model, units, user ('' for none), tracked ('1': in the
-- open set; a batch's hold is not, its batch releases it).
-- Returns {status, balance, reserved}: 1 reserved, 2 the job had a reservation already, 0 the
-- balance is short, -1 no such account.
-- An account has its balance field (the account's existence is asked only when it has not).
local sums = redis.call('HMGET', KEYS[1], 'balance', 'reserved', 'maxInFlight')
-- its cap on jobs in flight, for the schedule's admission that follows in the same script
-- (@relay/scheduler's admit.lua; lua-command.ts has `shared`)
shared.caps = shared.caps or {}
shared.caps[KEYS[1]] = sums[3] or false
if not sums[1] and redis.call('EXISTS', KEYS[1]) == 0 then return {-1, 0, 0} end
local balance = tonumber(sums[1] or '0')
local reserved = tonumber(sums[2] or '0')
if redis.call('EXISTS', KEYS[2]) == 1 then return {2, balance, reserved} end
local amount = tonumber(ARGV[1])
if balance < amount then return {0, balance, reserved} end
-- both sums written in one command: they stay below 2^53 (the ceiling), where Lua's numbers are exact
balance = balance - amount
reserved = reserved + amount
redis.call('HSET', KEYS[1], 'balance', balance, 'reserved', reserved)
redis.call('HSET', KEYS[2], 'accountId', ARGV[2], 'keyId', ARGV[3], 'jobId', ARGV[4], 'model', ARGV[5],
  'amount', amount, 'units', ARGV[6], 'state', 'reserved', 'user', ARGV[7])
local entry = redis.call('XADD', KEYS[3], '*', 'type', 'reserve', 'accountId', ARGV[2], 'keyId', ARGV[3], 'jobId', ARGV[4],
  'model', ARGV[5], 'units', ARGV[6], 'amount', 0 - amount, 'charged', 0, 'balance', balance, 'reserved', reserved, 'user', ARGV[7])
-- opened when its ledger entry was written: the entry's id starts with Redis' time in ms, which
-- the steps after it in the same script take as theirs instead of asking the clock again
local ms = tonumber(string.match(entry, '^%d+'))
shared.clock = shared.clock or {math.floor(ms / 1000), (ms % 1000) * 1000}
if ARGV[8] == '1' then redis.call('ZADD', KEYS[4], ms, ARGV[4]) end
return {1, balance, reserved}

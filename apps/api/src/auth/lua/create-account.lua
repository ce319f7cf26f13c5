-- Creates an account unless one already holds its name: the name index, the account's hash and
-- its listing and search entries in one step, so of two creates with the same name exactly one
-- wins. Returns '' when created, else the id of the account that holds the name.
-- KEYS: the name index (hash), the account (hash), the listing (zset), the search index (zset).
-- ARGV: the name as compared, id, name, createdAt, then the search index members.
local holder = redis.call('HGET', KEYS[1], ARGV[1])
if holder then return holder end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], 'id', ARGV[2], 'name', ARGV[3], 'createdAt', ARGV[4], 'balance', 0, 'reserved', 0, 'spent', 0)
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[2])
for i = 5, #ARGV do redis.call('ZADD', KEYS[4], 0, ARGV[i]) end
return ''

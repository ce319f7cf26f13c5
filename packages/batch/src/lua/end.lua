-- The batch has ended: its final status and files, and no worker needs to look at it again.
-- KEYS: batch, active. ARGV: status, unix seconds, output file id, error file id. Returns 1.
redis.call('HSET', KEYS[1], 'status', ARGV[1], ARGV[1] .. '_at', ARGV[2], 'output_file_id', ARGV[3], 'error_file_id', ARGV[4])
redis.call('HSET', KEYS[1], 'failed', tonumber(redis.call('HGET', KEYS[1], 'total') or '0') - tonumber(redis.call('HGET', KEYS[1], 'completed') or '0'))
redis.call('ZREM', KEYS[2], redis.call('HGET', KEYS[1], 'id'))
return 1

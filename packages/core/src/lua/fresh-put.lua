-- A file just stored, kept for the api process that waits to answer with its bytes (storage/fresh.ts).
-- KEYS: its fresh key. ARGV: its content type, a newline and its bytes; how long it is kept (ms).
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1

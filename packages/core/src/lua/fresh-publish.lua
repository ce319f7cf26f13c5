-- A file just stored, published to the api process that waits to answer with its bytes (storage/fresh.ts).
-- KEYS: that process's inbox (the channel is named after it; the key routes the script on a cluster).
-- ARGV: the channel, the message. Returns how many subscribers heard it.
return redis.call('PUBLISH', ARGV[1], ARGV[2])

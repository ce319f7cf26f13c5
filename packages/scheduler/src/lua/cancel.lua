-- After helpers.lua. ARGV: S, jobId. Takes a job out while it is still pending (its client left).
-- Returns 1 when taken out, 0 once dispatched.
local v = redis.call('HGET', S .. ':jobs', ARGV[2])
if not v then return 0 end
local f = split(v)
unqueue(ARGV[2], f[1], f[2], tonumber(f[3]))
return 1

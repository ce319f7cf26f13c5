-- Counts a failed authentication of one client address in its window: the first failure starts
-- the window (the key lapses with it, so Redis holds nothing of an address once its window ends).
-- KEYS: the address's counter. ARGV: window in ms. Returns the failures counted in the window.
local n = redis.call('INCR', KEYS[1])
if n == 1 or redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1])) end
return n

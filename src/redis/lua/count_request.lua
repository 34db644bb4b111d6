-- Counts one request in a fixed window, the counter expiring with the window.
-- KEYS: the window's counter. ARGV: its time to live (s). Returns the count so far.
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return n

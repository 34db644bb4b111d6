-- Deletes a render lease only while it is still ours (it may have expired and been taken since).
-- KEYS: the lease. ARGV: our token. Returns 1 when deleted.
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end

-- Hands a pending entry back: moved to the `HANDED_BACK` consumer with an idle time past any claim
-- timeout (so the next worker to look reclaims it) and its delivery count lowered by one (so this
-- delivery does not count as an attempt). Only an entry the caller still owns: one reclaimed elsewhere
-- is that worker's. Parking it under another consumer is what keeps a heartbeat already under way for
-- it (its id read before the release) from taking it back and resetting its idle time.
-- KEYS: stream; ARGV: group, id, caller's consumer, idle ms, parking consumer. Returns 0 when the entry
-- is no longer the caller's.
local pending = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[2], ARGV[2], 1)
if #pending == 0 or pending[1][2] ~= ARGV[3] then return 0 end
local delivered = tonumber(pending[1][4])
redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[5], 0, ARGV[2], 'IDLE', ARGV[4],
    'RETRYCOUNT', math.max(delivered - 1, 0), 'JUSTID')
return 1

-- Refreshes the idle time of jobs this consumer is running, so they are not taken as a dead worker's.
-- Only jobs still owned by this consumer: one already reclaimed elsewhere is not taken back.
-- KEYS: stream. ARGV: group, consumer, ids…
local kept = 0
for i = 3, #ARGV do
    local p = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[i], ARGV[i], 1)
    if p[1] and p[1][2] == ARGV[2] then
        redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[i], 'JUSTID')
        kept = kept + 1
    end
end
return kept

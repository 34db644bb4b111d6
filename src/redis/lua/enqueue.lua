-- Enqueue: a job goes in only if no twin holds its dedupe marker.
-- KEYS: dedupe marker, stream. ARGV: job JSON, marker TTL (s).
if redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[2]) then
    redis.call('XADD', KEYS[2], '*', 'job', ARGV[1], 'attempt', '1')
    return 1
end
return 0

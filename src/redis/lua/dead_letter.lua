-- Moves a job to the dead-letter stream and forgets it (same no-op rule as SCHEDULE).
-- KEYS: stream, dead stream, [dedupe marker]. ARGV: group, id, job text, attempts, reason, max length.
if redis.call('XACK', KEYS[1], ARGV[1], ARGV[2]) == 0 then
    return 0
end
redis.call('XDEL', KEYS[1], ARGV[2])
local t = redis.call('TIME')
local now = string.format('%d', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[6], '*',
    'job', ARGV[3], 'attempts', ARGV[4], 'failed_at_ms', now, 'reason', ARGV[5])
if KEYS[3] then
    redis.call('DEL', KEYS[3])
end
return 1

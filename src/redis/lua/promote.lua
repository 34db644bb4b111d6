-- Moves retries whose time has come from the delayed set back into the stream.
-- KEYS: delayed set, stream. ARGV: batch size.
local t = redis.call('TIME')
local now = string.format('%d', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[1]))
for _, member in ipairs(due) do
    local attempt, job = string.match(member, '^(%d+):[^:]*:(.*)$')
    if not attempt then
        -- Not ours: let the reader dead-letter it as unparsable rather than drop it silently.
        attempt, job = '1', member
    end
    redis.call('XADD', KEYS[2], '*', 'job', job, 'attempt', attempt)
    redis.call('ZREM', KEYS[1], member)
end
return #due

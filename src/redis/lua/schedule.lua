-- Schedules a failed job's next attempt; a no-op if the entry is no longer pending (another worker
-- reclaimed it and has settled it), so a late hand-back cannot duplicate the job.
-- KEYS: stream, delayed set. ARGV: group, id, member (`<attempt>:<nonce>:<job>`), delay (ms).
if redis.call('XACK', KEYS[1], ARGV[1], ARGV[2]) == 0 then
    return 0
end
redis.call('XDEL', KEYS[1], ARGV[2])
local t = redis.call('TIME')
local due = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[4])
redis.call('ZADD', KEYS[2], string.format('%d', due), ARGV[3])
return 1

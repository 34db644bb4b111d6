-- Takes over one job pending longer than the idle limit (its worker died), with its delivery count.
-- KEYS: stream. ARGV: group, consumer, min idle (ms), cursor.
-- Returns {next cursor} or {next cursor, id, state, job, attempt, times delivered}; state is 1 when
-- the entry has a `job` field, 0 when it has none, `gone` when the entry no longer exists (Redis 6).
local r = redis.call('XAUTOCLAIM', KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4], 'COUNT', 1)
local entry = r[2][1]
if not entry then
    return {r[1]}
end
local id, fields = entry[1], entry[2]
local state, job, attempt = 'gone', '', ''
if fields then
    state = '0'
    for i = 1, #fields, 2 do
        if fields[i] == 'job' then
            state, job = '1', fields[i + 1]
        elseif fields[i] == 'attempt' then
            attempt = fields[i + 1]
        end
    end
end
local pending = redis.call('XPENDING', KEYS[1], ARGV[1], id, id, 1)
local delivered = '1'
if pending[1] then
    delivered = tostring(pending[1][4])
end
return {r[1], id, state, job, attempt, delivered}

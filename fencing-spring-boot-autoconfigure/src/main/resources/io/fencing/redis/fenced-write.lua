-- A fenced write of a Redis value: the compare and the write in one script.
-- KEYS[1]: the value's key; KEYS[2]: its token's key (a hash: lock, token), in the same slot.
-- ARGV[1]: lock name; ARGV[2]: token, decimal; ARGV[3]: set | hset | del | hdel;
-- ARGV[4]: the hash field; ARGV[5]: the value; ARGV[6]: fenced | unfenced (fencing.enabled=false).
local fenced = ARGV[6] ~= 'unfenced'
local lock, accepted
if fenced then
  local fence = redis.call('HMGET', KEYS[2], 'lock', 'token')
  lock, accepted = fence[1], fence[2]
  if lock and lock ~= ARGV[1] then
    return {'other-lock', lock, accepted}
  end
  -- Compared as decimal strings: Lua's numbers are doubles, exact only up to 2^53.
  if accepted and (#accepted > #ARGV[2] or (#accepted == #ARGV[2] and accepted > ARGV[2])) then
    return {'stale', lock, accepted}
  end
end
local operation = ARGV[3]
if operation == 'set' then
  redis.call('SET', KEYS[1], ARGV[5])
elseif operation == 'hset' then
  redis.call('HSET', KEYS[1], ARGV[4], ARGV[5])
elseif operation == 'del' then
  redis.call('DEL', KEYS[1])
elseif operation == 'hdel' then
  redis.call('HDEL', KEYS[1], ARGV[4])
else
  return redis.error_reply('unknown operation ' .. operation)
end
-- The same owner's next write leaves its token as it is.
if fenced and accepted ~= ARGV[2] then
  redis.call('HSET', KEYS[2], 'lock', ARGV[1], 'token', ARGV[2])
end
return {'written'}

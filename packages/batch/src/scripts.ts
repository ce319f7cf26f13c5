/**
 * The steps of a batch that must not be seen half done (keys.ts has the layout). A line is fed
 * and recorded against the same `done` bit, so a line recorded once is never fed again nor
 * recorded twice, whichever worker gets there first.
 */

/** KEYS: done, inflight, offsets. ARGV: line, byte offset. 0 when the line is recorded already. */
export const FEED_LINE = `
if redis.call('GETBIT', KEYS[1], ARGV[1]) == 1 then return 0 end
local t = redis.call('TIME')
redis.call('ZADD', KEYS[2], 'NX', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000), ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
return 1
`;

/**
 * A line's outcome, once: the output line joins the records, the counts and the progress move on,
 * and the line leaves the in-flight set. What it was charged is read from its reservation.
 * KEYS: batch, done, inflight, offsets, records, the line's reservation.
 * ARGV: line, kind ('o' output, 'e' error), the output line, images, audio ms.
 */
export const RECORD = `
if redis.call('GETBIT', KEYS[2], ARGV[1]) == 1 then return 0 end
redis.call('SETBIT', KEYS[2], ARGV[1], 1)
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('HDEL', KEYS[4], ARGV[1])
redis.call('RPUSH', KEYS[5], ARGV[2] .. ARGV[3])
redis.call('HINCRBY', KEYS[1], 'seq', 1)
redis.call('HINCRBY', KEYS[1], ARGV[2] == 'o' and 'completed' or 'failed', 1)
if redis.call('HGET', KEYS[6], 'state') == 'settled' then
  redis.call('HINCRBY', KEYS[1], 'charged', tonumber(redis.call('HGET', KEYS[6], 'charged') or '0'))
end
redis.call('HINCRBY', KEYS[1], 'images', tonumber(ARGV[4]))
redis.call('HINCRBY', KEYS[1], 'audio_ms', tonumber(ARGV[5]))
return 1
`;

/**
 * The first `count` records were written as part `part`: drop them. A flush repeated after a crash
 * (same part, same lines) finds the part number moved on and drops nothing twice.
 * KEYS: batch, records. ARGV: count, part.
 */
export const FLUSHED = `
if tonumber(redis.call('HGET', KEYS[1], 'parts') or '0') ~= tonumber(ARGV[2]) then return 0 end
redis.call('LTRIM', KEYS[2], tonumber(ARGV[1]), -1)
redis.call('HINCRBY', KEYS[1], 'parts', 1)
redis.call('HINCRBY', KEYS[1], 'flushed', tonumber(ARGV[1]))
return 1
`;

/** KEYS: batch. ARGV: unix seconds. Asks a running batch to stop; returns the status it has now. */
export const CANCEL = `
local status = redis.call('HGET', KEYS[1], 'status')
if status == 'in_progress' or status == 'validating' then
  redis.call('HSET', KEYS[1], 'status', 'cancelling', 'cancelling_at', ARGV[1])
  return 'cancelling'
end
return status or ''
`;

/**
 * The batch has ended: its final status and files, and no worker needs to look at it again.
 * KEYS: batch, active. ARGV: status, unix seconds, output file id, error file id.
 */
export const END = `
redis.call('HSET', KEYS[1], 'status', ARGV[1], ARGV[1] .. '_at', ARGV[2], 'output_file_id', ARGV[3], 'error_file_id', ARGV[4])
redis.call('HSET', KEYS[1], 'failed', tonumber(redis.call('HGET', KEYS[1], 'total') or '0') - tonumber(redis.call('HGET', KEYS[1], 'completed') or '0'))
redis.call('ZREM', KEYS[2], redis.call('HGET', KEYS[1], 'id'))
return 1
`;

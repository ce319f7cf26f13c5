/**
 * Where channels live in Redis, all under the prefix (one hash tag, one Cluster slot):
 *   channels               set   channel ids
 *   channel:{id}           hash  the channel (record.ts); its key sealed, or the env var holding it
 *   channels:version       str   bumped by every change: workers reload when it moves
 *   chh:{id}               hash  breaker: state (closed|open), until (ms), why (limited|exhausted|failures), reason, probe (token), probeUntil, lat (ms)
 *   chw:{id}               hash  breaker window: `{bucket}:n` calls and `{bucket}:f` failures
 *   cap:{name}             zset  leases of calls running (token -> expiry ms); name: ch:{id}, grp:{group}, pool:{queue}
 *   cap:{name}:tat         str   the next start a per-minute limit allows (ms)
 *   cap:freed              chan  a lease was given back: a waiting worker tries now
 */
/** The name of a channel's own limit set (its leases are `cap:ch:{id}`). */
export const ownSetName = (id: string) => `ch:${id}`;

export const channelKeys = (prefix: string) => ({
  all: `${prefix}:channels`,
  channel: (id: string) => `${prefix}:channel:${id}`,
  version: `${prefix}:channels:version`,
  health: (id: string) => `${prefix}:chh:${id}`,
  window: (id: string) => `${prefix}:chw:${id}`,
  leases: (name: string) => `${prefix}:cap:${name}`,
  ownLeases: (id: string) => `${prefix}:cap:${ownSetName(id)}`,
  freed: `${prefix}:cap:freed`,
});
export type ChannelKeys = ReturnType<typeof channelKeys>;

/** The capacity a call takes a lease of: its channel's own, its group's, its queue's pool. */
export interface LimitSet {
  name: string;
  maxConcurrent: number;
  maxPerMinute: number;
}

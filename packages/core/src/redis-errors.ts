/**
 * Whether an error means Redis cannot serve the relay right now (the caller should come back
 * shortly), told by the error's kind, never by searching its text:
 * - a reply whose kind (the first word of Redis's error reply, the protocol's error prefix) says
 *   the server cannot take the command now: loading its data, a replica since a failover, no
 *   primary, a cluster without all its slots, too few replicas for a write, a script too long;
 * - a network failure (the system error code of the socket);
 * - ioredis giving up on a command: its MaxRetriesPerRequestError, ClusterAllFailedError, or
 *   AbortError (a pipeline's command sent, the connection lost before its reply);
 * - ioredis refusing a command with no connection, to one Redis or to a Cluster. Those are plain
 *   Errors: the message is their only mark, so it is compared whole with ioredis's own sentences,
 *   here and nowhere else.
 */
const UNAVAILABLE_REPLIES = new Set(['LOADING', 'READONLY', 'MASTERDOWN', 'CLUSTERDOWN', 'TRYAGAIN', 'NOREPLICAS', 'BUSY']);
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const GAVE_UP = new Set(['MaxRetriesPerRequestError', 'ClusterAllFailedError', 'AbortError']);
const NO_CONNECTION = new Set([
  'Connection is closed.',
  "Stream isn't writeable and enableOfflineQueue options is false",
  "Cluster isn't ready and enableOfflineQueue options is false",
  'Cluster is disconnected.',
  'None of startup nodes is available',
]);

export function isRedisUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'ReplyError') return UNAVAILABLE_REPLIES.has(error.message.split(' ', 1)[0]!);
  const { code } = error as { code?: unknown };
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
  return GAVE_UP.has(error.name) || NO_CONNECTION.has(error.message);
}

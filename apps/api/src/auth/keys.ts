import { createHash, randomBytes } from 'node:crypto';

/** API keys: 256 random bits, shown once; only their SHA-256 is stored. */
export const newApiKey = () => `rk_${randomBytes(32).toString('base64url')}`;
export const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');
export const newId = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;
/** Whether `value` has the shape newId gives: ids from a URL never reach a Redis key otherwise. */
const ID = /^[a-z]+_[0-9a-f]{16}$/;
export const isId = (prefix: 'acct' | 'key', value: string) => value.startsWith(`${prefix}_`) && ID.test(value);

import { createHash, randomBytes } from 'node:crypto';

/** API keys: 256 random bits, shown once; only their SHA-256 is stored. */
export const newApiKey = () => `rk_${randomBytes(32).toString('base64url')}`;
export const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');
export const newId = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;

import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Channel keys at rest: AES-256-GCM under a key derived from CHANNEL_SECRET, so a copy of Redis
 * (a backup, a replica, `MONITOR`) does not hand out the vendor keys. The api encrypts what the
 * admin API receives; workers decrypt what they call upstreams with.
 */
export interface KeySealer {
  seal(plain: string): string;
  open(sealed: string): string;
}

const VERSION = 'v1';

export function createKeySealer(secret: string): KeySealer {
  const key = createHash('sha256').update(`relay channel keys\0${secret}`).digest();
  return {
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [VERSION, iv, cipher.getAuthTag(), body]
        .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
        .join('.');
    },
    open(sealed) {
      const [version, iv, tag, body] = sealed.split('.');
      if (version !== VERSION || !iv || !tag || body === undefined) throw new Error('not a sealed channel key');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}

import { EMBEDDED_API_DEFAULTS } from '@relay/embedded/defaults';
import { startStack, type Stack } from '@relay/e2e';

export type { Stack };

/** The relay as `npm start` runs it, for clients that know nothing but a base URL and a key. */
export const startClientStack = () => startStack({ api: { ...EMBEDDED_API_DEFAULTS } });

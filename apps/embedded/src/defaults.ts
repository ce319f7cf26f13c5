/**
 * What `npm start` sets for the api unless the environment says otherwise. The relay streams
 * stored files itself (FILES_MODE=proxy): its links then stay on the relay's own origin, which
 * clients' downloaders accept (the AI SDK refuses a redirect to a loopback address such as
 * the embedded store's), and the store never has to be reachable by clients.
 */
export const EMBEDDED_API_DEFAULTS = { FILES_MODE: 'proxy' } as const;

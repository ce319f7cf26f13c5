/**
 * The admin token lives in sessionStorage only: it goes when the tab closes, is never put in a
 * URL, and is sent only as an Authorization header to this origin's /admin.
 */
const KEY = 'relay.console.adminToken';

export const readToken = () => sessionStorage.getItem(KEY);
export const saveToken = (token: string) => sessionStorage.setItem(KEY, token);
export const forgetToken = () => sessionStorage.removeItem(KEY);

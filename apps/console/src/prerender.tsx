import { renderToString } from 'preact-render-to-string';
import { SignIn } from './auth/sign-in.js';

/**
 * The sign-in form as HTML, for build.mjs to put in index.html: the page paints the form before
 * the app's script has run (or without JavaScript), and the app takes the same markup over.
 */
export const signInHtml = () => renderToString(<SignIn onSignedIn={() => undefined} />);

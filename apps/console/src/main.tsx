import { render } from 'preact';
import { App } from './app.js';
import { readToken } from './auth/session.js';
import './styles.css';

// index.html already holds the sign-in form (build.mjs renders it from the same component). A tab
// not signed in starts with that form: render reuses its elements (one form; focus and what was
// typed stay). A signed-in tab starts elsewhere: the form goes first (render would leave it there).
const root = document.getElementById('app')!;
if (readToken() !== null) root.replaceChildren();
render(<App />, root);

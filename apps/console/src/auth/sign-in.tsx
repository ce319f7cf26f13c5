import { useState } from 'preact/hooks';
import { admin } from '../api/client.js';
import { ErrorNote } from '../components/status.js';
import { saveToken } from './session.js';

/**
 * What the operator typed into the sign-in form index.html painted before this script ran (the
 * same form, prerendered by build.mjs): kept when the app takes the form over.
 */
const typedBeforeTheScript = () =>
  typeof document === 'undefined' ? '' : (document.querySelector<HTMLInputElement>('#app input[name="token"]')?.value ?? '');

/**
 * Asks for the admin token and keeps it for this tab once the admin API accepts it. index.html is
 * this form rendered at build time (build.mjs), so it is the first paint; the app takes it over.
 * Before the script runs (or without JavaScript) submitting it does nothing: `method="dialog"`
 * outside a dialog sends nothing anywhere, so the token never lands in a URL or a request.
 */
export function SignIn({ onSignedIn }: { onSignedIn: () => void }) {
  const [token, setToken] = useState(typedBeforeTheScript);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await admin('GET', '/catalog', undefined, token.trim());
      saveToken(token.trim());
      onSignedIn();
    } catch (err) {
      setError(
        (err as Error).message === 'The admin token was not accepted.'
          ? 'That is not the admin token of this relay.'
          : (err as Error).message,
      );
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="container narrow">
      <article>
        <h1>relay console</h1>
        <p>
          Sign in with the relay's admin token (<code>ADMIN_TOKEN</code>; <code>npm start</code> prints it). It is kept in this tab only.
        </p>
        <noscript>
          <p class="error">The relay console needs JavaScript: turn it on for this page to sign in.</p>
        </noscript>
        <form method="dialog" onSubmit={submit}>
          <label>
            Admin token
            <input
              type="password"
              name="token"
              autocomplete="current-password"
              required
              value={token}
              onInput={(e) => setToken(e.currentTarget.value)}
              aria-invalid={error ? true : undefined}
            />
          </label>
          <ErrorNote error={error} />
          <button type="submit" aria-busy={busy} disabled={busy}>
            Sign in
          </button>
        </form>
      </article>
    </main>
  );
}

/** What the console says when the relay runs without ADMIN_TOKEN: nothing here can work. */
export function AdminDisabled() {
  return (
    <main class="container narrow">
      <article>
        <h1>The admin API is off</h1>
        <p>
          This relay was started without <code>ADMIN_TOKEN</code>, so it has no admin API and the console cannot sign in. Set{' '}
          <code>ADMIN_TOKEN</code> in the api's environment and restart it.
        </p>
        <p>
          The public API works as usual; its reference is at <a href="/docs">/docs</a>.
        </p>
      </article>
    </main>
  );
}

import type { ComponentChildren } from 'preact';
import { useLocation } from 'preact-iso';
import { BASE, NAV } from './nav.js';

const current = (path: string, entry: string) => (entry === BASE ? path === BASE : path === entry || path.startsWith(`${entry}/`));

/** Header, navigation (a sidebar from 960 px, a wrapped bar below) and the page. */
export function Shell({ children, onSignOut, version }: { children: ComponentChildren; onSignOut: () => void; version: string }) {
  const { path } = useLocation();
  return (
    <div class="shell">
      <a class="skip" href="#main">
        Skip to the page
      </a>
      <header class="top">
        <a href={BASE} class="brand">
          relay <span class="muted">console</span>
        </a>
        <span class="muted small">v{version}</span>
        <button type="button" class="secondary outline small" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <nav aria-label="Console" class="side">
        <ul>
          {NAV.map((entry) => (
            <li>
              <a
                href={entry.path}
                aria-current={!entry.external && current(path, entry.path) ? 'page' : undefined}
                {...(entry.external ? { target: '_blank', rel: 'noopener' } : {})}
              >
                {entry.label}
                {entry.external ? <span class="visually-hidden"> (opens in a new tab)</span> : null}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" class="page" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}

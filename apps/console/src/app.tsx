import { useEffect, useState } from 'preact/hooks';
import { LocationProvider, Route, Router } from 'preact-iso';
import { whenUnauthorized } from './api/client.js';
import type { ConsoleConfig } from './api/types.js';
import { AdminDisabled, SignIn } from './auth/sign-in.js';
import { forgetToken, readToken } from './auth/session.js';
import { ErrorNote } from './components/status.js';
import { BASE } from './layout/nav.js';
import { Shell } from './layout/shell.js';
import { AccountPage } from './pages/account.js';
import { AccountsPage } from './pages/accounts.js';
import { BatchesPage } from './pages/batches.js';
import { ChannelsPage } from './pages/channels.js';
import { NotFound } from './pages/not-found.js';
import { OverviewPage } from './pages/overview.js';
import { PlaygroundPage } from './pages/playground.js';
import { QueuesPage } from './pages/queues.js';
import { SchedulingPage } from './pages/scheduling.js';

export function App() {
  const [config, setConfig] = useState<ConsoleConfig>();
  const [configError, setConfigError] = useState<string>();
  const [signedIn, setSignedIn] = useState(() => readToken() !== null);

  useEffect(() => {
    fetch('/console/config')
      .then((res) => (res.ok ? (res.json() as Promise<ConsoleConfig>) : Promise.reject(new Error(`the relay answered ${res.status}`))))
      .then(setConfig)
      .catch((e: Error) => setConfigError(`Cannot reach the relay: ${e.message}`));
    whenUnauthorized(() => {
      forgetToken();
      setSignedIn(false);
    });
  }, []);

  if (configError) return <ErrorNote error={configError} />;
  if (config && !config.adminEnabled) return <AdminDisabled />;
  // the sign-in form is index.html's first paint: it stays (the same component, what was typed
  // kept) while the config loads, instead of a "Loading…" in its place
  if (!signedIn) return <SignIn onSignedIn={() => setSignedIn(true)} />;
  if (!config) return <p aria-busy="true">Loading…</p>;

  const signOut = () => {
    forgetToken();
    setSignedIn(false);
  };
  return (
    <LocationProvider scope={BASE}>
      <Shell onSignOut={signOut} version={config.version}>
        <Router>
          <Route path={BASE} component={OverviewPage} />
          <Route path={`${BASE}/accounts`} component={AccountsPage} />
          <Route path={`${BASE}/accounts/:id`} component={AccountPage} />
          <Route path={`${BASE}/queues`} component={QueuesPage} />
          <Route path={`${BASE}/scheduling`} component={SchedulingPage} />
          <Route path={`${BASE}/channels`} component={ChannelsPage} />
          <Route path={`${BASE}/batches`} component={BatchesPage} />
          <Route path={`${BASE}/playground`} component={PlaygroundPage} />
          <Route default component={NotFound} />
        </Router>
      </Shell>
    </LocationProvider>
  );
}

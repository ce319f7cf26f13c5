import { useEffect, useState } from 'preact/hooks';
import { LocationProvider, Route, Router } from 'preact-iso';
import { whenUnauthorized } from './api/client.js';
import type { ConsoleConfig } from './api/types.js';
import { AdminDisabled, SignIn } from './auth/sign-in.js';
import { forgetToken, readToken } from './auth/session.js';
import { ComingSoon, ErrorNote } from './components/status.js';
import { BASE } from './layout/nav.js';
import { Shell } from './layout/shell.js';
import { AccountPage } from './pages/account.js';
import { AccountsPage } from './pages/accounts.js';
import { NotFound } from './pages/not-found.js';
import { OverviewPage } from './pages/overview.js';
import { PlaygroundPage } from './pages/playground.js';
import { QueuesPage } from './pages/queues.js';
import { SchedulingPage } from './pages/scheduling.js';

const Channels = () => (
  <ComingSoon title="Channels" feature="channels">
    <p>Each upstream channel's state (its breaker), with disable and enable.</p>
  </ComingSoon>
);
const Batches = () => (
  <ComingSoon title="Batches" feature="batches">
    <p>Batches with their progress, cancel, and their output and archive to download.</p>
  </ComingSoon>
);

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
  if (!config) return <p aria-busy="true">Loading…</p>;
  if (!config.adminEnabled) return <AdminDisabled />;
  if (!signedIn) return <SignIn onSignedIn={() => setSignedIn(true)} />;

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
          <Route path={`${BASE}/channels`} component={Channels} />
          <Route path={`${BASE}/batches`} component={Batches} />
          <Route path={`${BASE}/playground`} component={PlaygroundPage} />
          <Route default component={NotFound} />
        </Router>
      </Shell>
    </LocationProvider>
  );
}

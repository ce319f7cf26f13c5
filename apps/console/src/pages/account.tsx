import { useRoute } from 'preact-iso';
import { useState } from 'preact/hooks';
import type { AccountDetails } from '../api/types.js';
import { useAdmin } from '../api/use-admin.js';
import { CreditForm } from '../account/credit-form.js';
import { KeysPanel } from '../account/keys-panel.js';
import { Ledger } from '../account/ledger.js';
import { ScheduleForm } from '../account/schedule-form.js';
import { dateTime, money } from '../components/format.js';
import { Loading } from '../components/status.js';
import { UsageCharts } from '../components/usage-charts.js';
import { BASE } from '../layout/nav.js';

/** One account: its money, usage, keys and ledger, and the forms that change them. */
export function AccountPage() {
  const { params } = useRoute();
  const id = params.id ?? '';
  const account = useAdmin<AccountDetails>(`/accounts/${encodeURIComponent(id)}`);
  const [ledgerVersion, setLedgerVersion] = useState(0);
  const changed = () => {
    account.reload();
    setLedgerVersion((v) => v + 1);
  };
  const a = account.data;

  return (
    <>
      <p>
        <a href={`${BASE}/accounts`}>← Accounts</a>
      </p>
      <Loading ready={a !== undefined && a.id === id} error={account.error}>
        {a ? (
          <>
            <h1>{a.name || '(no name)'}</h1>
            <p class="muted">
              <code>{a.id}</code> · created {dateTime(a.createdAt)}
            </p>
            <dl class="tiles" aria-label="Money">
              <div>
                <dt>Balance</dt>
                <dd data-testid="balance">{money(a.balance)}</dd>
              </div>
              <div>
                <dt>Reserved</dt>
                <dd>{money(a.reserved)}</dd>
              </div>
              <div>
                <dt>Spent (lifetime)</dt>
                <dd>{money(a.spent)}</dd>
              </div>
            </dl>
            <UsageCharts path={`/accounts/${encodeURIComponent(a.id)}/usage/daily`} title="Usage" />
            <div class="grid-2">
              <div class="narrow-form">
                <CreditForm accountId={a.id} onDone={changed} />
              </div>
              <div class="narrow-form">
                <ScheduleForm key={a.id} account={a} onDone={account.reload} />
              </div>
            </div>
            <KeysPanel accountId={a.id} keys={a.keys} onChange={changed} />
            <Ledger accountId={a.id} keys={a.keys} version={ledgerVersion} />
          </>
        ) : null}
      </Loading>
    </>
  );
}

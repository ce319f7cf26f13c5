import { useState } from 'preact/hooks';
import { admin } from '../api/client.js';
import type { KeyBody, KeyRecord, NewKey } from '../api/types.js';
import { CopyButton } from '../components/copy-button.js';
import { DataTable } from '../components/data-table.js';
import { ago, count, dateTime } from '../components/format.js';
import { ErrorNote } from '../components/status.js';

/** The account's keys: make one (its secret shown once), see when each was last used, revoke. */
export function KeysPanel({ accountId, keys, onChange }: { accountId: string; keys: KeyRecord[]; onChange: () => void }) {
  const [created, setCreated] = useState<NewKey>();
  const [confirming, setConfirming] = useState<string>();
  const [error, setError] = useState<string>();

  const revoke = async (id: string) => {
    try {
      await admin('DELETE', `/keys/${encodeURIComponent(id)}`);
      setConfirming(undefined);
      onChange();
    } catch (e) {
      setError((e as Error).message);
    }
  };

  return (
    <section aria-labelledby="keys-title">
      <h2 id="keys-title">Keys</h2>
      {created ? (
        <NewSecret created={created} onDismiss={() => setCreated(undefined)} />
      ) : (
        <NewKeyForm accountId={accountId} onCreated={(k) => (setCreated(k), onChange())} />
      )}
      <ErrorNote error={error} />
      <DataTable
        caption="Keys"
        rows={keys}
        rowKey={(k) => k.id}
        empty="No keys yet."
        columns={[
          { label: 'Name', cell: (k) => k.name },
          { label: 'Id', cell: (k) => <code>{k.id}</code> },
          {
            label: 'Limit / min',
            numeric: true,
            cell: (k) => (k.rateLimitPerMinute === null ? 'default' : k.rateLimitPerMinute === 0 ? 'none' : count(k.rateLimitPerMinute)),
          },
          { label: 'Last used', cell: (k) => ago(k.lastUsedAt) },
          {
            label: 'State',
            cell: (k) =>
              k.revokedAt !== null ? (
                <span>revoked {dateTime(k.revokedAt)}</span>
              ) : confirming === k.id ? (
                <span class="row">
                  <button type="button" class="danger small" onClick={() => revoke(k.id)}>
                    Revoke {k.name} now
                  </button>
                  <button type="button" class="secondary outline small" onClick={() => setConfirming(undefined)}>
                    Keep
                  </button>
                </span>
              ) : (
                <button
                  type="button"
                  class="secondary outline small"
                  onClick={() => setConfirming(k.id)}
                  aria-label={`Revoke key ${k.name}`}
                >
                  Revoke…
                </button>
              ),
          },
        ]}
      />
    </section>
  );
}

function NewKeyForm({ accountId, onCreated }: { accountId: string; onCreated: (key: NewKey) => void }) {
  const [name, setName] = useState('');
  const [limit, setLimit] = useState('');
  const [error, setError] = useState<string>();
  const submit = async (e: Event) => {
    e.preventDefault();
    const body: KeyBody = { name, ...(limit.trim() ? { rateLimitPerMinute: Number(limit) } : {}) };
    try {
      onCreated(await admin<NewKey>('POST', `/accounts/${encodeURIComponent(accountId)}/keys`, body));
      setName('');
      setLimit('');
      setError(undefined);
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <form onSubmit={submit} aria-label="New key" class="inline-form">
      <label>
        Key name
        <input name="keyName" required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <label>
        Requests per minute
        <input
          name="rateLimit"
          type="number"
          min={0}
          step={1}
          placeholder="default"
          value={limit}
          onInput={(e) => setLimit(e.currentTarget.value)}
        />
      </label>
      <button type="submit">Create key</button>
      <ErrorNote error={error} />
    </form>
  );
}

/** The only time the secret exists outside its hash. */
function NewSecret({ created, onDismiss }: { created: NewKey; onDismiss: () => void }) {
  return (
    <article class="secret" aria-labelledby="secret-title">
      <h3 id="secret-title">Key “{created.name}” created</h3>
      <p>Copy the secret now: the relay keeps only its hash and will never show it again.</p>
      <p class="row wrap">
        <code data-testid="new-secret" class="grow">
          {created.key}
        </code>
        <CopyButton text={created.key} label="Copy secret" />
      </p>
      <button type="button" class="secondary" onClick={onDismiss}>
        I have copied it
      </button>
    </article>
  );
}

import { useState } from 'preact/hooks';
import { admin } from '../api/client.js';
import type { Account, AccountScheduleBody } from '../api/types.js';
import { ErrorNote } from '../components/status.js';

/** The account's place in the fair schedule: its weight against other accounts, and its cap on jobs in flight. */
export function ScheduleForm({ account, onDone }: { account: Account; onDone: () => void }) {
  const [weight, setWeight] = useState(String(account.weight));
  const [cap, setCap] = useState(account.maxInFlight === null ? '' : String(account.maxInFlight));
  const [error, setError] = useState<string>();
  const [done, setDone] = useState<string>();

  const submit = async (e: Event) => {
    e.preventDefault();
    setDone(undefined);
    const w = Number(weight);
    const most = cap.trim() === '' ? null : Number(cap);
    if (!Number.isFinite(w) || w < 0.01 || w > 1000) return setError('Weight: a number from 0.01 to 1000.');
    if (most !== null && (!Number.isInteger(most) || most < 1))
      return setError('Jobs in flight: a whole number of at least 1, or empty for no cap.');
    const body: AccountScheduleBody = { weight: w, maxInFlight: most };
    try {
      const answer = await admin<Account>('PATCH', `/accounts/${encodeURIComponent(account.id)}`, body);
      setError(undefined);
      setDone(
        `Saved: weight ${answer.weight}, ${answer.maxInFlight === null ? 'no cap on jobs in flight' : `at most ${answer.maxInFlight} jobs in flight`}.`,
      );
      onDone();
    } catch (err) {
      setError((err as Error).message);
    }
  };

  return (
    <form onSubmit={submit} aria-labelledby="schedule-title">
      <h2 id="schedule-title">Fair share</h2>
      <label>
        Weight (share of the capacity against other waiting accounts; default 1)
        <input name="weight" inputMode="decimal" required value={weight} onInput={(e) => setWeight(e.currentTarget.value)} />
      </label>
      <label>
        Most jobs in flight (empty: no cap of its own)
        <input name="maxInFlight" inputMode="numeric" value={cap} onInput={(e) => setCap(e.currentTarget.value)} />
      </label>
      <ErrorNote error={error} />
      <p role="status">{done}</p>
      <button type="submit">Save</button>
    </form>
  );
}

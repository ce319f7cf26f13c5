import { useState } from 'preact/hooks';
import { admin } from '../api/client.js';
import type { BalanceAnswer, CreditBody } from '../api/types.js';
import { count, money, parseUnits } from '../components/format.js';
import { ErrorNote } from '../components/status.js';

/** Adds credit, or corrects it with a negative amount; the note goes into the ledger. */
export function CreditForm({ accountId, onDone }: { accountId: string; onDone: () => void }) {
  const [amount, setAmount] = useState('');
  const [note, setNote] = useState('');
  const [error, setError] = useState<string>();
  const [done, setDone] = useState<string>();
  const micro = parseUnits(amount);

  const submit = async (e: Event) => {
    e.preventDefault();
    setDone(undefined);
    if (micro === undefined || micro === 0) return setError('Type an amount such as 50 or -2.5 (up to 6 decimals), not 0.');
    const body: CreditBody = { amount: micro, note };
    try {
      const answer = await admin<BalanceAnswer>('POST', `/accounts/${encodeURIComponent(accountId)}/credits`, body);
      setError(undefined);
      setDone(`Done: the balance is now ${money(answer.balance)}.`);
      setAmount('');
      setNote('');
      onDone();
    } catch (err) {
      setError((err as Error).message);
    }
  };

  return (
    <form onSubmit={submit} aria-labelledby="credit-title">
      <h2 id="credit-title">Add or correct credit</h2>
      <label>
        Amount (units; negative to correct)
        <input
          name="amount"
          inputMode="decimal"
          required
          value={amount}
          onInput={(e) => setAmount(e.currentTarget.value)}
          aria-describedby="amount-hint"
        />
      </label>
      <small id="amount-hint">{micro === undefined ? 'Up to 6 decimals.' : `${count(micro)} micro-units`}</small>
      <label>
        Note (kept in the ledger)
        <input name="note" required maxLength={500} value={note} onInput={(e) => setNote(e.currentTarget.value)} placeholder="invoice 42" />
      </label>
      <ErrorNote error={error} />
      <p role="status">{done}</p>
      <button type="submit">Apply</button>
    </form>
  );
}

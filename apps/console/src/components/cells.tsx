import { dateTime } from './format.js';
import './cells.css';

/**
 * An id on one line, cut with an ellipsis when the column is narrow: the whole id is in its
 * tooltip, and selecting and copying the cell copies all of it (the cut is only drawn).
 */
export function IdCell({ id }: { id: string }) {
  return (
    <code class="id" title={id}>
      {id}
    </code>
  );
}

/** A date and time on one line, with the exact instant (UTC, ISO 8601) in its tooltip. */
export function DateCell({ at }: { at: number | string | null | undefined }) {
  const exact = at === null || at === undefined ? undefined : new Date(at).toISOString();
  return (
    <time class="nowrap" dateTime={exact} title={exact}>
      {dateTime(at)}
    </time>
  );
}

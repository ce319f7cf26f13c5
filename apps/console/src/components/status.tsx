import type { ComponentChildren } from 'preact';

/** An error in words, announced to screen readers. */
export const ErrorNote = ({ error }: { error: string | undefined }) =>
  error ? (
    <p role="alert" class="error">
      {error}
    </p>
  ) : null;

/** Shows `children` once `ready`, a busy line while loading, the error if any. */
export function Loading({ ready, error, children }: { ready: boolean; error?: string; children: ComponentChildren }) {
  if (error && !ready) return <ErrorNote error={error} />;
  if (!ready) return <p aria-busy="true">Loading…</p>;
  return (
    <>
      <ErrorNote error={error} />
      {children}
    </>
  );
}

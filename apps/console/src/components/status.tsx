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

/** A page of the navigation whose feature is still being built elsewhere. */
export function ComingSoon({ title, feature, children }: { title: string; feature: string; children?: ComponentChildren }) {
  return (
    <section>
      <h1>{title}</h1>
      <article class="coming">
        <p>
          <strong>Coming with {feature}.</strong> The admin API for it is not in this relay yet; this page fills in when it is.
        </p>
        {children}
      </article>
    </section>
  );
}

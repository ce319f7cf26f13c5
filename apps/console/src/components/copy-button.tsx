import { useState } from 'preact/hooks';

/** Copies `text`; says so (aria-live) or says to copy by hand when the browser refuses. */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return (
    <span class="copy">
      <button type="button" class="secondary outline small" onClick={copy}>
        {label}
      </button>
      <span aria-live="polite" class="muted">
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Select the text and copy it' : ''}
      </span>
    </span>
  );
}

/** A block of code or a secret, selectable, with its copy button. */
export function CodeBlock({ code, label }: { code: string; label: string }) {
  return (
    <figure class="code">
      <figcaption>
        {label} <CopyButton text={code} label={`Copy ${label}`} />
      </figcaption>
      <pre tabIndex={0}>
        <code>{code}</code>
      </pre>
    </figure>
  );
}

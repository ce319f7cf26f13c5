import { useEffect, useState } from 'preact/hooks';
import type { AdminCatalog, DemoKey } from '../api/types.js';
import { useAdmin } from '../api/use-admin.js';
import { Loading } from '../components/status.js';
import { ImagePanel } from '../playground/image-panel.js';
import { SpeechPanel } from '../playground/speech-panel.js';

/**
 * Try a model with a real key. The relay never gives a secret back, so the operator pastes
 * one, except under npm start, whose demo key the api hands a signed-in operator; it stays in
 * this page's memory and is sent only to this relay's public API.
 */
export function PlaygroundPage() {
  const catalog = useAdmin<AdminCatalog>('/catalog');
  const demo = useAdmin<DemoKey>('/demo-key');
  const [apiKey, setApiKey] = useState('');
  useEffect(() => {
    if (demo.data?.key) setApiKey((typed) => typed || demo.data!.key!);
  }, [demo.data]);
  const [mode, setMode] = useState<'image' | 'speech'>('image');
  return (
    <>
      <h1>Playground</h1>
      <label>
        API key (a key's secret; it is charged like any request)
        <input
          type="password"
          name="apiKey"
          autocomplete="off"
          value={apiKey}
          onInput={(e) => setApiKey(e.currentTarget.value.trim())}
          placeholder="rk_…"
          aria-describedby="api-key-hint"
        />
      </label>
      <small id="api-key-hint">
        {demo.data?.key && apiKey === demo.data.key
          ? "Filled in with the demo account's key that npm start made (charged to the demo account)."
          : "Paste a key; a new one is made on an account's page."}
      </small>
      <div role="group" aria-label="What to try" class="segmented">
        <button
          type="button"
          aria-pressed={mode === 'image'}
          class={mode === 'image' ? '' : 'secondary outline'}
          onClick={() => setMode('image')}
        >
          Image
        </button>
        <button
          type="button"
          aria-pressed={mode === 'speech'}
          class={mode === 'speech' ? '' : 'secondary outline'}
          onClick={() => setMode('speech')}
        >
          Speech
        </button>
      </div>
      <Loading ready={catalog.data !== undefined} error={catalog.error}>
        {catalog.data ? (
          mode === 'image' ? (
            <ImagePanel apiKey={apiKey} models={catalog.data.imageModels} />
          ) : (
            <SpeechPanel apiKey={apiKey} models={catalog.data.speechModels} />
          )
        ) : null}
      </Loading>
    </>
  );
}

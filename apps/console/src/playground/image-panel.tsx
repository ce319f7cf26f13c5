import { useState } from 'preact/hooks';
import type { AdminCatalog, ImageRequest, ImagesResponse } from '../api/types.js';
import { CodeBlock } from '../components/copy-button.js';
import { ErrorNote } from '../components/status.js';
import { callRelay } from './call-relay.js';
import { imageCurl, imageSdk } from './snippets.js';

const SIZES = ['2K', '3K', '2048x2048', '2304x1728', '1728x2304', '2560x1440', '1440x2560'];

/**
 * The model a first try should use: the newest text-to-image model, by the release date its id
 * ends with (YYMMDD); the catalog's order breaks ties and ids without a date.
 */
export function newestModel(models: AdminCatalog['imageModels']): string {
  const date = (id: string) => /-(\d{6})$/.exec(id)?.[1] ?? '';
  const textToImage = models.filter((m) => m.inputImages.min === 0);
  return (
    textToImage.reduce<string | undefined>((best, m) => (best === undefined || date(m.id) > date(best) ? m.id : best), undefined) ?? ''
  );
}

/** A prompt in, the stored image(s) out, and the same request as curl and as openai SDK code. */
export function ImagePanel({ apiKey, models }: { apiKey: string; models: AdminCatalog['imageModels'] }) {
  const [model, setModel] = useState(() => newestModel(models));
  const [prompt, setPrompt] = useState('a lighthouse at dusk');
  const [size, setSize] = useState('2K');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [result, setResult] = useState<ImagesResponse>();
  const body: ImageRequest = { model, prompt, size, response_format: 'b64_json' };

  const run = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    setResult(undefined);
    try {
      setResult(await callRelay<ImagesResponse>('/v1/images/generations', { authorization: `Bearer ${apiKey}` }, body));
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <form onSubmit={run} aria-label="Image request">
        <div class="grid-2">
          <label>
            Image model
            <select name="imageModel" value={model} onChange={(e) => setModel(e.currentTarget.value)}>
              {models.map((m) => (
                <option value={m.id}>{m.id}</option>
              ))}
            </select>
          </label>
          <label>
            Size
            <select name="size" value={size} onChange={(e) => setSize(e.currentTarget.value)}>
              {SIZES.map((s) => (
                <option value={s}>{s}</option>
              ))}
            </select>
          </label>
        </div>
        <label>
          Prompt
          <textarea name="prompt" required rows={3} value={prompt} onInput={(e) => setPrompt(e.currentTarget.value)} />
        </label>
        <button type="submit" aria-busy={busy} disabled={busy || !apiKey}>
          Generate
        </button>
      </form>
      <ErrorNote error={error} />
      {result ? (
        <section aria-label="Generated images" class="gallery">
          {result.data.map((image, i) => (
            <figure>
              <img
                src={`data:image/${image.b64_json?.startsWith('/9j/') ? 'jpeg' : 'png'};base64,${image.b64_json ?? ''}`}
                alt={`Image ${i + 1} for: ${prompt}`}
              />
              <figcaption>
                {image.size} · <a href={image.url}>stored file</a>
              </figcaption>
            </figure>
          ))}
          {result.failed?.map((f) => (
            <p class="error">
              Image {f.index + 1} not delivered: {f.message}
            </p>
          ))}
        </section>
      ) : null}
      <CodeBlock label="curl" code={imageCurl(location.origin, body)} />
      <CodeBlock label="openai SDK (JavaScript)" code={imageSdk(location.origin, body)} />
    </>
  );
}

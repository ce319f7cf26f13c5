import { useEffect, useState } from 'preact/hooks';
import type { AdminCatalog, GenerateContentResponse } from '../api/types.js';
import { CodeBlock } from '../components/copy-button.js';
import { ErrorNote } from '../components/status.js';
import { callRelay, callRelayForBytes } from './call-relay.js';
import {
  openAISpeechBody,
  openAISpeechCurl,
  openAISpeechSdk,
  SPEECH_FORMATS,
  speechBody,
  speechCurl,
  speechPath,
  speechSdk,
  type SpeechFormat,
} from './snippets.js';
import { pcmToWavBlob } from './wav.js';

/**
 * Text and a voice in, playable audio out, through Gemini's own API (the answer's PCM made a WAV
 * here) or OpenAI's /v1/audio/speech in a format the relay encodes; and the same request as code.
 */
export function SpeechPanel({ apiKey, models }: { apiKey: string; models: AdminCatalog['speechModels'] }) {
  const [model, setModel] = useState(models[0]?.id ?? '');
  const voices = models.find((m) => m.id === model)?.voices ?? [];
  const [voice, setVoice] = useState(voices[0] ?? '');
  const [text, setText] = useState('Say warmly: the relay works.');
  const [format, setFormat] = useState<SpeechFormat>('gemini');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [audio, setAudio] = useState<{ url: string; label: string }>();
  const body = speechBody(text, voice);
  const openai = format === 'gemini' ? undefined : openAISpeechBody(model, text, voice, format);

  useEffect(() => () => audio && URL.revokeObjectURL(audio.url), [audio]);

  const run = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    setAudio(undefined);
    try {
      if (openai) {
        const blob = await callRelayForBytes('/v1/audio/speech', { authorization: `Bearer ${apiKey}` }, openai);
        setAudio({ url: URL.createObjectURL(blob), label: `${format}, ${Math.round(blob.size / 1024)} KiB` });
        return;
      }
      const answer = await callRelay<GenerateContentResponse>(speechPath(model), { 'x-goog-api-key': apiKey }, body);
      const inline = answer.candidates[0]?.content.parts[0]?.inlineData;
      if (!inline) throw new Error('the answer holds no audio');
      setAudio({
        url: URL.createObjectURL(pcmToWavBlob(inline.data, inline.mimeType)),
        label: `${answer.usageMetadata.totalTokenCount} tokens`,
      });
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <form onSubmit={run} aria-label="Speech request">
        <div class="grid-2">
          <label>
            Speech model
            <select name="speechModel" value={model} onChange={(e) => setModel(e.currentTarget.value)}>
              {models.map((m) => (
                <option value={m.id}>{m.id}</option>
              ))}
            </select>
          </label>
          <label>
            Format
            <select name="format" value={format} onChange={(e) => setFormat(e.currentTarget.value as SpeechFormat)}>
              {SPEECH_FORMATS.map((f) => (
                <option value={f}>{f === 'gemini' ? "Gemini's own API (PCM, played as WAV)" : `${f} (OpenAI's /v1/audio/speech)`}</option>
              ))}
            </select>
          </label>
          <label>
            Voice
            <select name="voice" value={voice} onChange={(e) => setVoice(e.currentTarget.value)}>
              {voices.map((v) => (
                <option value={v}>{v}</option>
              ))}
            </select>
          </label>
        </div>
        <label>
          Text
          <textarea name="text" required rows={3} value={text} onInput={(e) => setText(e.currentTarget.value)} />
        </label>
        <button type="submit" aria-busy={busy} disabled={busy || !apiKey}>
          Speak
        </button>
      </form>
      <ErrorNote error={error} />
      {audio ? (
        <figure>
          <audio controls src={audio.url} aria-label={`Speech: ${text}`} />
          <figcaption>{audio.label}</figcaption>
        </figure>
      ) : null}
      {openai ? (
        <>
          <CodeBlock label="curl" code={openAISpeechCurl(location.origin, openai)} />
          <CodeBlock label="openai SDK (JavaScript)" code={openAISpeechSdk(location.origin, openai)} />
        </>
      ) : (
        <>
          <CodeBlock label="curl" code={speechCurl(location.origin, model, body)} />
          <CodeBlock label="@google/genai SDK (JavaScript)" code={speechSdk(location.origin, model, text, voice)} />
        </>
      )}
    </>
  );
}

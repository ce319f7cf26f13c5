import { z } from 'zod';
import { toValidationError, type SpeechModel } from '@relay/core';
import { queuedSpeechRequest } from '../admission.js';
import type { InteractionsSpeechRequest, InteractionsText } from './interactions-request.js';
import type { SpeechJob } from './job.js';
import { speechRequestSchema, type SpeechRequest } from './request.js';

type Path = PropertyKey[];
type Part = NonNullable<SpeechRequest['contents'][number]['parts']>[number];
interface Issue {
  path: Path;
  message: string;
}

const SPEECH_CONFIG: Path = ['generation_config', 'speech_config'];

/** The input as turns of text contents, each with the path a client would name it by. */
function turnsOf(input: InteractionsSpeechRequest['input']): Array<Array<{ path: Path; content: InteractionsText }>> {
  if (typeof input === 'string') return [[{ path: ['input'], content: { type: 'text', text: input } }]];
  if (!Array.isArray(input)) return [[{ path: ['input'], content: input }]];
  return input.map((entry, i) =>
    entry.type === 'text'
      ? [{ path: ['input', i], content: entry }]
      : (entry.content ?? []).map((content, j) => ({ path: ['input', i, 'content', j], content })),
  );
}

/** A byte offset of UTF-8 text that falls between characters. */
const between = (bytes: Buffer, at: number) => at === bytes.length || (at < bytes.length && (bytes[at]! & 0xc0) !== 0x80);

/**
 * A text content as Gemini parts: each speech_metadata annotation's range (byte offsets, the
 * whole text by default) becomes a part carrying it as speechMetadata, the text between them
 * parts of their own.
 */
function partsOf(content: InteractionsText, path: Path, issues: Issue[]): Array<{ part: Part; annotation?: number }> {
  const bytes = Buffer.from(content.text);
  const ranges = (content.annotations ?? [])
    .map((annotation, index) => ({ annotation, index, start: annotation.start_index ?? 0, end: annotation.end_index ?? bytes.length }))
    .sort((a, b) => a.start - b.start);
  const parts: Array<{ part: Part; annotation?: number }> = [];
  let at = 0;
  for (const { annotation, index, start, end } of ranges) {
    const where = [...path, 'annotations', index];
    if (start >= end || end > bytes.length) {
      issues.push({
        path: [...where, 'end_index'],
        message: `the range [${start}, ${end}) must be within the text's ${bytes.length} bytes`,
      });
    } else if (start < at) {
      issues.push({ path: [...where, 'start_index'], message: 'speech_metadata ranges of a text must not overlap' });
    } else if (!between(bytes, start) || !between(bytes, end)) {
      const field = between(bytes, start) ? 'end_index' : 'start_index';
      issues.push({ path: [...where, field], message: `${field} must fall between characters (a byte offset of the UTF-8 text)` });
    } else {
      if (start > at) parts.push({ part: { text: bytes.toString('utf8', at, start) } });
      const { speaker, style } = annotation;
      const speechMetadata = { ...(speaker !== undefined ? { speaker } : {}), ...(style !== undefined ? { style } : {}) };
      parts.push({ part: { text: bytes.toString('utf8', start, end), speechMetadata }, annotation: index });
      at = end;
    }
  }
  if (at < bytes.length || parts.length === 0) parts.push({ part: { text: bytes.toString('utf8', at) } });
  return parts;
}

/** speech_config's voices, however it was written (Google's SpeakerConfig, a list, or one), with their paths. */
function voicesOf(config: NonNullable<InteractionsSpeechRequest['generation_config']>['speech_config']) {
  if (config === undefined) return [];
  if (Array.isArray(config)) return config.map((voice, i) => ({ path: [...SPEECH_CONFIG, i], voice }));
  if ('speakers' in config) return config.speakers.map((voice, i) => ({ path: [...SPEECH_CONFIG, 'speakers', i], voice }));
  return [{ path: SPEECH_CONFIG, voice: config }];
}

/** Gemini's speechConfig for the voices: one voice, or a voice per speaker (Gemini's multi-speaker takes exactly two). */
function speechConfigOf(voices: ReturnType<typeof voicesOf>, model: SpeechModel, issues: Issue[]) {
  if (voices.length === 0) return undefined;
  // the model's own spelling of a voice (Google's guide writes them lowercase)
  const voiceName = (name: string | undefined) =>
    name === undefined
      ? (model.defaultVoice ?? model.voices[0]!)
      : (model.voices.find((v) => v.toLowerCase() === name.toLowerCase()) ?? name);
  const languages = [...new Set(voices.flatMap((v) => v.voice.language ?? []))];
  if (languages.length > 1) issues.push({ path: SPEECH_CONFIG, message: `one language per clip; the voices name ${languages.join(', ')}` });
  const languageCode = languages.length ? { languageCode: languages[0]! } : {};
  if (voices.length === 1)
    return { voiceConfig: { prebuiltVoiceConfig: { voiceName: voiceName(voices[0]!.voice.voice) } }, ...languageCode };
  if (voices.length !== 2) {
    issues.push({
      path: SPEECH_CONFIG,
      message: `multi-speaker speech takes exactly 2 speakers, got ${voices.length}; for one voice, give one`,
    });
  }
  voices.forEach((v) => {
    if (!v.voice.speaker) issues.push({ path: [...v.path, 'speaker'], message: 'with two voices, each names its speaker' });
  });
  const speakerVoiceConfigs = voices.map((v) => ({
    speaker: v.voice.speaker ?? '',
    voiceConfig: { prebuiltVoiceConfig: { voiceName: voiceName(v.voice.voice) } },
  }));
  return { multiSpeakerVoiceConfig: { speakerVoiceConfigs }, ...languageCode };
}

/** Gemini's field path -> the field of the Interactions body it came from. */
type Origin = (path: Path) => Path;

function speechConfigOrigin(voices: ReturnType<typeof voicesOf>): Origin {
  return ([, , field, , i, ...rest]) => {
    if (field === 'voiceConfig') return [...voices[0]!.path, 'voice'];
    if (field === 'languageCode') return [...(voices.find((v) => v.voice.language)?.path ?? SPEECH_CONFIG), 'language'];
    if (field !== 'multiSpeakerVoiceConfig') return SPEECH_CONFIG;
    if (typeof i === 'number' && voices[i]) return [...voices[i].path, rest.includes('speaker') ? 'speaker' : 'voice'];
    // the speakers as a whole: the list they were given in
    const first = voices[0]?.path;
    return first && typeof first.at(-1) === 'number' ? first.slice(0, -1) : SPEECH_CONFIG;
  };
}

/**
 * An Interactions speech body as the speech job's Gemini body: texts as parts, speech_metadata
 * annotations as the parts' speechMetadata, speech_config as speechConfig. Checked by the same
 * rules as Gemini's own door (voices, speakers, lengths), every refusal naming the Interactions
 * field it came from.
 */
export function geminiSpeechOf(asked: InteractionsSpeechRequest, modelId: string, model: SpeechModel): SpeechJob['request'] {
  const issues: Issue[] = [];
  const origins: Array<Array<{ path: Path; annotation?: number }>> = [];
  const contents = turnsOf(asked.input).map((turn) => {
    const parts = turn.flatMap(({ path, content }) => partsOf(content, path, issues).map((made) => ({ ...made, path })));
    origins.push(parts.map(({ path, annotation }) => ({ path, ...(annotation !== undefined ? { annotation } : {}) })));
    return { role: 'user' as const, parts: parts.map((made) => made.part) };
  });
  const voices = voicesOf(asked.generation_config?.speech_config);
  const speechConfig = speechConfigOf(voices, model, issues);
  const speakers = new Set(voices.flatMap((v) => v.voice.speaker ?? []));
  contents.forEach((content, c) =>
    content.parts.forEach((part, p) => {
      const speaker = part.speechMetadata?.speaker;
      if (speaker === undefined) return;
      // one voice speaks everything: naming its speaker says nothing more
      if (voices.length === 1 && speakers.has(speaker)) delete part.speechMetadata!.speaker;
      else if (!speakers.has(speaker)) {
        const { path, annotation } = origins[c]![p]!;
        const named = speakers.size
          ? `one of ${[...speakers].join(', ')}`
          : 'a speaker of generation_config.speech_config (none names one)';
        issues.push({ path: [...path, 'annotations', annotation!, 'speaker'], message: `speaker "${speaker}" must be ${named}` });
      }
    }),
  );
  const config = asked.generation_config;
  const request = queuedSpeechRequest(
    {
      contents,
      generationConfig: {
        responseModalities: ['AUDIO'],
        ...(speechConfig ? { speechConfig } : {}),
        ...(config?.temperature !== undefined ? { temperature: config.temperature } : {}),
        ...(config?.top_p !== undefined ? { topP: config.top_p } : {}),
        ...(config?.seed !== undefined ? { seed: config.seed } : {}),
      },
    },
    model,
  );
  const origin: Origin = (path) => {
    const [head, c, , p, field, ...rest] = path;
    if (head === 'generationConfig') return path[1] === 'speechConfig' ? speechConfigOrigin(voices)(path) : ['generation_config'];
    const part = typeof c === 'number' && typeof p === 'number' ? origins[c]?.[p] : undefined;
    if (!part) return ['input'];
    if (field === 'speechMetadata' && part.annotation !== undefined) return [...part.path, 'annotations', part.annotation, ...rest];
    return field === undefined ? part.path : [...part.path, field];
  };
  const checked = speechRequestSchema(modelId, model).safeParse(request);
  for (const issue of checked.error?.issues ?? []) issues.push({ path: origin(issue.path), message: issue.message });
  if (issues.length) {
    throw toValidationError(new z.ZodError(issues.map((issue) => ({ code: 'custom' as const, input: undefined, ...issue }))));
  }
  return request;
}

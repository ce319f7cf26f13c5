import type { SpeechRequest } from '@relay/jobs';
import { readsDirectionInText } from './direction.js';

type Body = Omit<SpeechRequest, 'model'>;
type Part = NonNullable<Body['contents'][number]['parts']>[number];

/** A direction as Google's guide writes one for the models that read it in the text: "Speak warmly:\n<text>". */
const directed = (style: string, text: string) => `${style}:\n${text}`;

/**
 * A dialogue written for the models that read speakers in the text ("Joe: ...\nJane: ..."), as
 * parts that each name their speaker, for those that read the text verbatim: each line that opens
 * with a configured speaker's name starts a part of that speaker; other lines stay with the part
 * before them. A part that names its speaker already, or holds no such line, stays as it is.
 */
const byLine =
  (speakers: string[]) =>
  (part: Part): Part[] => {
    if (part.speechMetadata?.speaker) return [part];
    const lines: Part[] = [];
    for (const line of part.text.split('\n')) {
      const speaker = speakers.find((name) => line.startsWith(`${name}:`));
      const last = lines.at(-1);
      if (speaker) lines.push({ text: line.slice(speaker.length + 1).trim(), speechMetadata: { ...part.speechMetadata, speaker } });
      else if (last) last.text += `\n${line}`;
      else lines.push({ ...part, text: line });
    }
    return lines.some((p) => p.speechMetadata?.speaker) ? lines : [part];
  };

/**
 * Style and speaker where the vendor model reads them. The 3.8 models read the text verbatim and
 * take them apart, as Gemini's speechMetadata on a text part: the job's style (OpenAI's
 * `instructions`) goes there, on every text part that has none of its own, and a dialogue written
 * as "Name: ..." lines becomes a part per speaker. The 2.5 and 3.1 models
 * know no such field and read direction from the text itself: there a part's speaker leads its
 * line ("Joe: ..."), its style or the job's comes before it as a direction, and the field goes.
 */
export function styledFor(vendorModel: string, body: Body, style?: string): Body {
  const inText = readsDirectionInText(vendorModel);
  const speakers = body.generationConfig.speechConfig?.multiSpeakerVoiceConfig?.speakerVoiceConfigs.map((s) => s.speaker) ?? [];
  if (!inText && speakers.length)
    body = { ...body, contents: body.contents.map((c) => (c.parts ? { ...c, parts: c.parts.flatMap(byLine(speakers)) } : c)) };
  if (!style && !body.contents.some((c) => c.parts?.some((p) => p.speechMetadata))) return body;
  let styleLeft = style;
  const fold = (part: Part): Part => {
    const { speechMetadata, ...plain } = part;
    let text = speechMetadata?.speaker ? `${speechMetadata.speaker}: ${part.text}` : part.text;
    // the job's style once, before the first words, as the whole input's direction
    const own = speechMetadata?.style ?? (part.text.trim() ? styleLeft : undefined);
    if (!speechMetadata?.style && own) styleLeft = undefined;
    if (own) text = directed(own, text);
    return { ...plain, text };
  };
  const annotate = (part: Part): Part =>
    style && part.text.trim() && !part.speechMetadata?.style ? { ...part, speechMetadata: { ...part.speechMetadata, style } } : part;
  return { ...body, contents: body.contents.map((c) => (c.parts ? { ...c, parts: c.parts.map(inText ? fold : annotate) } : c)) };
}

import type { SpeechRequest } from '@relay/jobs';

type Body = Omit<SpeechRequest, 'model'>;

/** A leading clause that tells a speech model how to read what follows ("Say cheerfully:"). */
const DIRECTED = /^\s*(say|read|speak|tts)\b[^:\n]{0,80}:/i;

/**
 * Gemini's 2.5 and 3.1 speech models read a leading direction as Google's TTS guide shows it
 * ("Say cheerfully: Have a wonderful day!") and may refuse a bare short, question-like or
 * imperative text as a request to write text ("Hello world", "Bonjour."). The 3.8 models read
 * the text verbatim and take style apart (speech_metadata): a direction would be spoken there.
 */
export const readsDirectionInText = (vendorModel: string) => !/^gemini-3\.8-/.test(vendorModel);

/**
 * The body with a plain reading direction before the first text, when it has none: the user's
 * words are all still there, unchanged and in order. Undefined when there is nothing to add.
 */
export function withReadingDirection(vendorModel: string, body: Body): Body | undefined {
  if (!readsDirectionInText(vendorModel)) return undefined;
  const at = body.contents.findIndex((c) => c.parts?.some((p) => p.text.trim() !== ''));
  if (at < 0) return undefined;
  const content = body.contents[at]!;
  const first = content.parts!.findIndex((p) => p.text.trim() !== '');
  const text = content.parts![first]!.text;
  if (DIRECTED.test(text)) return undefined;
  const parts = content.parts!.map((p, i) => (i === first ? { text: `Read aloud:\n${text}` } : p));
  return { ...body, contents: body.contents.map((c, i) => (i === at ? { ...c, parts } : c)) };
}

import { z } from 'zod';

/**
 * Lanes, highest first: a caller waiting synchronously, an async (202) job, a batch line. A lower
 * lane gets every slot the higher ones leave free. The order is kept by the dispatcher; jobs
 * handed to the workers are few (the execution window) and run in the order they were handed out.
 */
export const LANES = ['interactive', 'async', 'batch'] as const;
export const laneSchema = z.enum(LANES);
export type Lane = z.output<typeof laneSchema>;

/** Speech is weighed by its expected audio: about this many characters are spoken per second. */
const CHARS_PER_AUDIO_SECOND = 15;
/** Gemini cuts TTS audio off near 327 s whatever the text (UPSTREAM-APIS 2.5). */
const MAX_AUDIO_SECONDS = 330;

/* An image job weighs the most images it can make (an image set of 15 weighs 15): its reservation's count. */

/** What a speech job weighs: the seconds of audio its text should give. */
export const speechJobCost = (textChars: number) => Math.min(MAX_AUDIO_SECONDS, Math.max(1, Math.ceil(textChars / CHARS_PER_AUDIO_SECOND)));

import { z } from 'zod';

/** OpenAI's bounds for `speed`. */
export const MIN_SPEED = 0.25;
export const MAX_SPEED = 4;

export const speechSpeedSchema = z.number().min(MIN_SPEED).max(MAX_SPEED);

/**
 * FFmpeg `atempo` filters for a speed: tempo changes, pitch stays. One atempo takes 0.5 to 100,
 * but above 2 it drops samples instead of blending them (FFmpeg's docs), so speeds outside
 * [0.5, 2] run as two equal steps, each within that range.
 */
export function tempoFilters(speed: number): string[] {
  if (speed === 1) return [];
  if (speed >= 0.5 && speed <= 2) return [`atempo=${speed}`];
  const step = Math.sqrt(speed);
  return [`atempo=${step}`, `atempo=${step}`];
}

import { z } from 'zod';
import { envInt, envString, envUrl, logEnv, parseEnv, type Env } from '@relay/core';

export const simulatorEnvSchema = z.object({
  SIM_HOST: envString().default('127.0.0.1'),
  SIM_PORT: envInt(0, 65535).default(4010),
  /** Base of the links it hands out; defaults to http://SIM_HOST:port. */
  SIM_PUBLIC_URL: envUrl().optional(),
  /** Comma-separated keys it accepts, for both APIs. */
  SIM_API_KEYS: envString().default('sim-key'),
  /** Time before the first image (or the audio) is ready. */
  SIM_LATENCY_MS: envInt().default(0),
  /** Time between images of a sequential set: a streamed set sends each this long after the last. */
  SIM_IMAGE_SPACING_MS: envInt().default(0),
  /** Time between the audio pieces of a streamed clip (3.x models): the first comes after SIM_LATENCY_MS, each further one this long after. */
  SIM_SPEECH_CHUNK_MS: envInt().default(0),
  /**
   * What `stream: true` on a model that cannot stream (3.0-t2i, SeedEdit) gets: `refuse`, a 400
   * InvalidParameter naming `stream`, or `ignore`, a plain JSON answer. The vendor's choice is
   * not documented.
   */
  SIM_STREAM_UNSUPPORTED: z.enum(['refuse', 'ignore']).default('refuse'),
  /** Lifetime of image links; the real upstream keeps them 24 h. */
  SIM_URL_TTL_SECONDS: envInt(1).default(86_400),
  /** Images per minute before 429 (0 = no limit). */
  SIM_MAX_IPM: envInt().default(500),
  /** Concurrent calls before 429 (0 = no limit). */
  SIM_MAX_CONCURRENT: envInt().default(0),
  /** Gemini requests per minute before 429 RESOURCE_EXHAUSTED (0 = no limit). */
  SIM_SPEECH_RPM: envInt().default(0),
  /**
   * Comma-separated Gemini models the vendor has shut down: each call naming one is answered 404
   * NOT_FOUND as Google answers a model it does not serve (the preview TTS models close this way).
   */
  SIM_RETIRED_MODELS: envString().optional(),
  SIM_LINK_SECRET: envString().default('simulator-link-secret'),
  ...logEnv,
});

export type SimulatorConfig = z.output<typeof simulatorEnvSchema>;

export const loadSimulatorConfig = (env: Env = process.env) => parseEnv(simulatorEnvSchema, env);

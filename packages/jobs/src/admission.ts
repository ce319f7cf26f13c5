import type { ImageModel, SpeechModel } from '@relay/core';
import { imageCost, speechReservation, webSearchCost } from '@relay/billing';
import type { ImageRequest } from './images/request.js';
import { maxImagesOf } from './images/request.js';
import { layeredImagesOf } from './images/layers.js';
import { endUserOf, generationsOf } from './images/openai-fields.js';
import { speechJobCost } from './lanes.js';
import { readChars, type SpeechRequest } from './speech/request.js';
import type { SpeechJob } from './speech/job.js';

/**
 * What accepting a validated request holds and weighs, the same for a synchronous call and a batch
 * line: the most it can cost (its reservation, in micro-units) and its cost units in the schedule.
 */
export interface Hold {
  reservation: { model: string; amount: number; units: string; user?: string };
  cost: number;
}

/** n independent generations, each up to its own maximum of images (`uploaded`: input images sent as files). */
export function imageHold(model: ImageModel, request: ImageRequest, uploaded?: number): Hold {
  const inputs = uploaded ?? (request.image === undefined ? 0 : Array.isArray(request.image) ? request.image.length : 1);
  // with layers, the base image and every layer the model may return are images delivered (and charged)
  const perGeneration = request.layer_decomposition ? layeredImagesOf(model) : maxImagesOf(request, inputs);
  const maxImages = perGeneration * generationsOf(request);
  const user = endUserOf(request);
  // each of the n calls may search: the vendor's fee a call, apart from the images
  const searches = request.tools?.length ? generationsOf(request) : 0;
  return {
    reservation: {
      model: request.model,
      amount: imageCost(model, maxImages) + webSearchCost(model, searches),
      units: searches ? `${maxImages} images, ${searches} web searches` : `${maxImages} images`,
      ...(user ? { user } : {}),
    },
    cost: maxImages,
  };
}

/** Every character as a token and the model's whole audio allowance; weighed by its expected audio. */
export function speechHold(modelId: string, model: SpeechModel, request: Pick<SpeechRequest, 'contents'>, style?: string): Hold {
  const chars = readChars(request, style);
  return {
    reservation: { model: modelId, amount: speechReservation(model, chars), units: `in:${chars},out:${model.maxOutputTokens}` },
    cost: speechJobCost(chars),
  };
}

/**
 * The speech request as it is queued: imageConfig is accepted (the SPEC lists it) but means
 * nothing for speech; a request that names no voice gets the model's default, since Gemini 3.x
 * TTS refuses one without (2.5 chose a voice itself) and a channel may map the model onto 3.x.
 */
export function queuedSpeechRequest(request: SpeechRequest, model: SpeechModel): SpeechJob['request'] {
  const { generationConfig, ...rest } = request;
  const { imageConfig: _ignored, ...config } = generationConfig;
  const voiceName = model.defaultVoice ?? model.voices[0]!;
  return {
    ...rest,
    generationConfig: { ...config, speechConfig: config.speechConfig ?? { voiceConfig: { prebuiltVoiceConfig: { voiceName } } } },
  };
}

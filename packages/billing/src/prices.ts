import type { ImageModel, SpeechModel } from '@relay/core';

/** Ceil of tokens x price-per-million, in integer micro-units (no floating-point money). */
export const tokenCost = (tokens: number, pricePerMillion: number) => Math.ceil((tokens * pricePerMillion) / 1_000_000);

export const imageCost = (model: ImageModel, images: number) => model.price * images;

/** The vendor's web search fee: per upstream call that searched, whatever it searched. */
export const webSearchCost = (model: ImageModel, searchedCalls: number) => model.webSearchPrice * searchedCalls;

export function speechCost(model: SpeechModel, inputTokens: number, outputTokens: number) {
  return tokenCost(inputTokens, model.price.inputPerMillion) + tokenCost(outputTokens, model.price.outputPerMillion);
}

/**
 * The most a speech request can cost: every character counted as a token (text never takes
 * more tokens than characters) and the model's whole audio output allowance.
 */
export const speechReservation = (model: SpeechModel, textChars: number) => speechCost(model, textChars, model.maxOutputTokens);

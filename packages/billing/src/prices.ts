import type { ImageModel, SpeechModel } from '@relay/core';

/**
 * Ceil of tokens x price-per-million, in integer micro-units (no floating-point money). A product
 * past 2^53 (a price near the ceiling of every amount, MAX_MICRO_UNITS, times a long text) is
 * worked out in BigInt: never rounded before it is divided.
 */
export function tokenCost(tokens: number, pricePerMillion: number): number {
  const product = tokens * pricePerMillion;
  if (Number.isSafeInteger(product) || !Number.isInteger(tokens) || !Number.isInteger(pricePerMillion))
    return Math.ceil(product / 1_000_000);
  return Number((BigInt(tokens) * BigInt(pricePerMillion) + 999_999n) / 1_000_000n);
}

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

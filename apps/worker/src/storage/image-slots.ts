import { AppError } from '@relay/core';
import type { ImageJobResult, StoredFile } from '@relay/jobs';
import { NotAnImage } from './sniff-image.js';

type FailedSlot = ImageJobResult['failed'][number];

/** The code in `failed` of a slot whose bytes are no image. */
export const NOT_AN_IMAGE = 'upstream_not_an_image';

/** Whether a slot's store failure says its bytes are no image (a storeError of NotAnImage). */
export const isNotAnImage = (error: unknown): error is AppError => error instanceof AppError && error.cause instanceof NotAnImage;

/**
 * Stores the slots a set delivered, side by side. A slot whose bytes are no image was not
 * delivered after all: it joins `failed` (kept in slot order) and is not charged, and the other
 * slots still deliver. A set none of whose slots is an image fails with its first slot's 502,
 * so nothing is charged. Any other failure fails the set as before (a store outage is retried,
 * a result too large or a refused link is final).
 */
export async function storeDelivered<T extends { index: number }>(
  delivered: readonly T[],
  failed: FailedSlot[],
  store: (slot: T) => Promise<StoredFile>,
): Promise<StoredFile[]> {
  const refused: Array<{ index: number; error: AppError }> = [];
  const stored = await Promise.all(
    delivered.map(async (slot) => {
      try {
        return await store(slot);
      } catch (error) {
        if (!isNotAnImage(error)) throw error;
        refused.push({ index: slot.index, error });
        return undefined;
      }
    }),
  );
  if (refused.length === 0) return stored as StoredFile[];
  refused.sort((a, b) => a.index - b.index);
  const images = stored.filter((file) => file !== undefined);
  if (images.length === 0) throw refused[0]!.error;
  failed.push(...refused.map(({ index, error }) => ({ index, code: NOT_AN_IMAGE, message: error.message })));
  failed.sort((a, b) => a.index - b.index);
  return images;
}

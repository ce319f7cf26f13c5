import { z } from 'zod';
import { MAX_MICRO_UNITS } from '../money/money.js';

/** A price in micro-units: an integer within the ceiling of every amount (money.ts). */
export const price = () =>
  z
    .number()
    .int()
    .min(0)
    .max(MAX_MICRO_UNITS, `a price is at most ${MAX_MICRO_UNITS} micro-units (one billion units), the ceiling of every amount`);

import type { Locator } from 'playwright-core';
import { expect } from 'vitest';

/** How many lines an element's text takes on screen (its line boxes, by their tops). */
export const linesOf = (element: Locator) =>
  element.evaluate((el) => {
    const text = document.createRange();
    text.selectNodeContents(el);
    return new Set([...text.getClientRects()].map((r) => Math.round(r.top))).size;
  });

/**
 * A row of the batches table fits its page (1280 px in these tests): the table does not scroll
 * sideways (the Created date was cut off), and the progress ("500 / 500 (492 failed)") is one line.
 */
export async function fitsThePage(table: Locator, row: Locator) {
  expect(await table.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
  expect(await linesOf(row.locator('.progress-cell .nowrap'))).toBe(1);
  const [date, region] = [await row.locator('time').boundingBox(), await table.boundingBox()];
  expect(date!.x + date!.width).toBeLessThanOrEqual(region!.x + region!.width);
}

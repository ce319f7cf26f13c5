import { z } from 'zod';
import { AppError } from '@relay/core';

/** Google's models.list paging: 50 a page unless asked, never more than 1000. */
export const pageQuery = z.object({
  pageSize: z.coerce
    .number({ error: 'pageSize must be an integer' })
    .int('pageSize must be an integer')
    .min(0, 'pageSize must not be negative')
    .optional()
    .transform((size) => Math.min(size || 50, 1000))
    .describe('Gemini callers: models per page (default 50, at most 1000)'),
  pageToken: z.string().optional().describe("Gemini callers: the previous page's nextPageToken"),
});

const tokenOf = (offset: number) => Buffer.from(`offset:${offset}`).toString('base64url');

/** One page of `items`; the token is opaque to callers and names where the next page starts. */
export function pageOf<T>(items: T[], query: z.output<typeof pageQuery>): { page: T[]; nextPageToken?: string } {
  let offset = 0;
  if (query.pageToken) {
    const match = /^offset:(\d{1,9})$/.exec(Buffer.from(query.pageToken, 'base64url').toString());
    offset = match ? Number(match[1]) : -1;
    if (offset < 0 || offset > items.length) {
      throw new AppError('invalid_request', 'pageToken is not one this relay handed out', { param: 'pageToken' });
    }
  }
  const end = offset + query.pageSize;
  return { page: items.slice(offset, end), ...(end < items.length ? { nextPageToken: tokenOf(end) } : {}) };
}

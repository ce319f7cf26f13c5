import { describe, expect, test } from 'vitest';
import { pageOf, pageQuery } from './paging.js';

const items = ['a', 'b', 'c', 'd', 'e'];
const page = (query: Record<string, string>) => pageOf(items, pageQuery.parse(query));

describe("Google's models.list paging", () => {
  test('pages of pageSize, each token leading to the next, none after the last', () => {
    const seen: string[] = [];
    let token: string | undefined;
    do {
      const next = page({ pageSize: '2', ...(token ? { pageToken: token } : {}) });
      seen.push(...next.page);
      token = next.nextPageToken;
    } while (token);
    expect(seen).toEqual(items);
  });

  test('50 a page by default (0 too), at most 1000', () => {
    expect(pageQuery.parse({}).pageSize).toBe(50);
    expect(pageQuery.parse({ pageSize: '0' }).pageSize).toBe(50);
    expect(pageQuery.parse({ pageSize: '5000' }).pageSize).toBe(1000);
    expect(page({})).toEqual({ page: items });
  });

  test('a token the relay did not hand out, or a bad size, is refused', () => {
    expect(() => page({ pageToken: 'nonsense' })).toThrow(/pageToken/);
    expect(() => page({ pageToken: Buffer.from('offset:99').toString('base64url') })).toThrow(/pageToken/);
    expect(pageQuery.safeParse({ pageSize: '-1' }).success).toBe(false);
    expect(pageQuery.safeParse({ pageSize: 'ten' }).success).toBe(false);
  });
});

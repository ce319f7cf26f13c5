/**
 * Ark writes a generated size as `WxH`; its own docs write `W×H` (U+00D7), and 3.0-t2i and
 * SeedEdit answers carry none. Both spellings read; anything else is no size (''), never NaN.
 */
export function readArkSize(value: unknown): string {
  if (typeof value !== 'string') return '';
  const m = /^\s*(\d{1,5})\s*[x×X]\s*(\d{1,5})\s*$/.exec(value);
  return m ? `${Number(m[1])}x${Number(m[2])}` : '';
}

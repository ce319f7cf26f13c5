/**
 * `record[key]` for a key that came from a client: only the record's own entries count, so
 * "constructor", "__proto__" or "toString" never reach Object.prototype.
 */
export function ownValue<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * `--redact FIELD,…` (docs/replay.md): the value of every own key with one of these names, at any depth,
 * replaced by `[REDACTED]`. One function for every file that holds payloads — the recording and the
 * journal's `arguments` and `result` — so a field redacted in one is redacted in the other.
 */
import { isPlainObject, ownKeys, ownValue } from '../json.js';

/** What a redacted value is replaced with. */
export const REDACTED_VALUE = '[REDACTED]';

/**
 * A copy of `value` with the value of every own key named in `fields` replaced by `[REDACTED]`, at any depth.
 * Iterative (no stack for deep values); an own `__proto__` key is copied as an own key, never as a prototype.
 * With no fields, `value` itself.
 */
export function redact(value: unknown, fields: ReadonlySet<string>): unknown {
  if (fields.size === 0 || (typeof value !== 'object' && !Array.isArray(value)) || value === null) return value;
  const root: { value: unknown } = { value: undefined };
  const work: Array<{ source: unknown; put: (copy: unknown) => void }> = [{ source: value, put: (c) => (root.value = c) }];
  while (work.length > 0) {
    const { source, put } = work.pop()!;
    if (Array.isArray(source)) {
      const copy: unknown[] = new Array<unknown>(source.length);
      put(copy);
      source.forEach((item, index) => work.push({ source: item, put: (c) => (copy[index] = c) }));
    } else if (isPlainObject(source)) {
      const copy: Record<string, unknown> = {};
      put(copy);
      for (const key of ownKeys(source)) {
        const define = (c: unknown) =>
          Object.defineProperty(copy, key, { value: c, enumerable: true, writable: true, configurable: true });
        if (fields.has(key)) define(REDACTED_VALUE);
        else work.push({ source: ownValue(source, key), put: define });
      }
    } else put(source);
  }
  return root.value;
}

/**
 * The arguments a probe sends and how it reads answers: the example with its key placed (argument,
 * `_meta`, none), the example with one argument changed (P2) and an answer as comparable text. The items
 * a count tool's answer lists (`--count-with`) are read by the effects module's one reader
 * (`../effects/answer-records.ts`). Pure.
 */
import { canonicalJson, isPlainObject, ownKeys, ownValue } from '../json.js';
import type { KeyPlacement } from './probes.js';

/** The example with the key fields removed, and `key` placed as the step says. */
export function placeKey(
  example: Readonly<Record<string, unknown>>,
  keyField: string,
  placement: KeyPlacement,
  key: string,
): { arguments: Record<string, unknown>; meta: Record<string, unknown> | undefined } {
  const args: Record<string, unknown> = {};
  for (const name of ownKeys(example))
    if (name !== keyField)
      Object.defineProperty(args, name, { value: example[name], enumerable: true, writable: true, configurable: true });
  if (placement === 'same' || placement === 'new')
    Object.defineProperty(args, keyField, { value: key, enumerable: true, writable: true, configurable: true });
  return { arguments: args, meta: placement === 'meta' ? { [keyField]: key } : undefined };
}

/**
 * The example with one argument changed, the key fields left alone: the first number + 1, else the first
 * string with "-other" appended, else the first boolean flipped; null when there is none of these.
 */
export function otherArguments(
  example: Readonly<Record<string, unknown>>,
  keyFields: readonly string[],
): Record<string, unknown> | null {
  const names = ownKeys(example).filter((name) => !keyFields.includes(name));
  const change = (name: string, value: unknown): Record<string, unknown> => {
    const copy: Record<string, unknown> = {};
    for (const n of ownKeys(example))
      Object.defineProperty(copy, n, {
        value: n === name ? value : example[n],
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return copy;
  };
  for (const kind of ['number', 'string', 'boolean'] as const) {
    const name = names.find((n) => typeof example[n] === kind);
    if (name === undefined) continue;
    const value = example[name];
    if (typeof value === 'number') return change(name, value + 1);
    if (typeof value === 'string') return change(name, `${value}-other`);
    return change(name, !value);
  }
  return null;
}

/** A result as text to compare and show: its content and structuredContent, canonical. */
export function answerText(result: unknown): string {
  if (!isPlainObject(result)) return canonicalJson(result);
  const content = ownValue(result, 'content');
  const texts = Array.isArray(content)
    ? content.map((item) =>
        isPlainObject(item) && typeof ownValue(item, 'text') === 'string'
          ? (ownValue(item, 'text') as string)
          : canonicalJson(item),
      )
    : [];
  const structured = ownValue(result, 'structuredContent');
  if (structured !== undefined) texts.push(canonicalJson(structured));
  return texts.join('\n');
}

import fc from 'fast-check';
import type { JsonValue } from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isNotationVariant } from '../../../src/domain/judging/near-duplicate.js';
import { DEFAULT_RUNS } from '../../support/property-runs.js';

type JsonObject = Record<string, JsonValue>;

/** Rebuilds a JSON value, mapping leaves and arrays; object keys are kept (and own, even "__proto__"). */
function mapJson(
  value: JsonValue,
  leaf: (v: JsonValue) => JsonValue,
  array: (items: JsonValue[]) => JsonValue[] = (items) => items,
): JsonValue {
  if (Array.isArray(value)) return array(value.map((item) => mapJson(item, leaf, array)));
  if (value === null || typeof value !== 'object') return leaf(value);
  const entries = Object.entries(value).map(([key, item]) => [key, mapJson(item ?? null, leaf, array)]);
  return Object.fromEntries(entries) as JsonObject;
}

const onStrings = (change: (text: string) => string) => (value: JsonValue) => (typeof value === 'string' ? change(value) : value);
const insertMiddle = (text: string, inserted: string): string => {
  const middle = Math.floor(text.length / 2);
  return `${text.slice(0, middle)}${inserted}${text.slice(middle)}`;
};

/** Each R-6 notation change, applied everywhere in a value. */
const notationChanges: Record<string, (value: JsonValue) => JsonValue> = {
  'number → numeric string': (v) => mapJson(v, (x) => (typeof x === 'number' ? JSON.stringify(x) : x)),
  'string → upper case': (v) =>
    mapJson(
      v,
      onStrings((s) => s.toUpperCase()),
    ),
  'zero-width space inserted': (v) =>
    mapJson(
      v,
      onStrings((s) => insertMiddle(s, '\u200b')),
    ),
  'spaces inserted': (v) =>
    mapJson(
      v,
      onStrings((s) => ` ${insertMiddle(s, '  ')}`),
    ),
  'NFD form': (v) =>
    mapJson(
      v,
      onStrings((s) => s.normalize('NFD')),
    ),
  'arrays reversed': (v) =>
    mapJson(
      v,
      (x) => x,
      (items) => [...items].reverse(),
    ),
  'null ↔ ""': (v) => mapJson(v, (x) => (x === null ? '' : x === '' ? null : x)),
};

const json = fc.jsonValue({ maxDepth: 3, stringUnit: 'grapheme' });
const args = fc.dictionary(fc.string({ unit: 'grapheme' }), json, { maxKeys: 6 });

/** Small alphabets, so that random pairs are often near each other (half rule, notation, order). */
const nearLeaf = fc.constantFrom<JsonValue>(1, '1', ' 1', '1.0', '01', 'A', 'a', '', null, true, 'true');
const nearValue = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    nearLeaf,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd'), tie('value'), { maxKeys: 4 }),
  ),
})).value;

describe('R-6 properties', () => {
  for (const [name, change] of Object.entries(notationChanges)) {
    it(`R-6: ${name} is recognised`, () => {
      fc.assert(
        fc.property(args, (value) => isNotationVariant(value, change(value))),
        DEFAULT_RUNS,
      );
    });
  }

  it('R-6: one field added to an object with at least 2 fields is recognised', () => {
    const objects = fc.dictionary(fc.string(), json, { minKeys: 2, maxKeys: 6 });
    fc.assert(
      fc.property(objects, json, (value, added) => {
        const key = `added:${Object.keys(value).join('')}`;
        return isNotationVariant(value, { ...value, [key]: added });
      }),
      DEFAULT_RUNS,
    );
  });

  it('R-6: a real value change at a shared key is not recognised', () => {
    const change = fc.oneof(
      fc.integer().map((n): [JsonValue, JsonValue] => [n, n + 1]),
      fc.double({ noNaN: true, min: -1e15, max: 1e15 }).map((n): [JsonValue, JsonValue] => [n, n + 1]),
      fc.string({ unit: 'grapheme' }).map((s): [JsonValue, JsonValue] => [s, `${s}q`]),
      fc.boolean().map((b): [JsonValue, JsonValue] => [b, !b]),
      fc.integer({ min: 1 }).map((n): [JsonValue, JsonValue] => [`${n}`, `-${n}`]),
    );
    const place = fc.constantFrom('top', 'nested', 'in array');
    fc.assert(
      fc.property(args, change, place, (base, [before, after], where) => {
        const wrap = (target: JsonValue): JsonValue => {
          const object: JsonObject = { ...base, target };
          if (where === 'top') return object;
          return where === 'nested' ? { order: object, id: 1 } : { items: [object, 'x'] };
        };
        return !isNotationVariant(wrap(before), wrap(after));
      }),
      DEFAULT_RUNS,
    );
  });

  it('R-6: the relation is symmetric', () => {
    const changed = fc
      .tuple(args, fc.constantFrom(...Object.values(notationChanges)))
      .map(([value, change]): [JsonValue, JsonValue] => [value, change(value)]);
    const pairs = fc.oneof(fc.tuple(nearValue, nearValue), fc.tuple(args, args), changed);
    fc.assert(
      fc.property(pairs, ([a, b]) => isNotationVariant(a, b) === isNotationVariant(b, a)),
      DEFAULT_RUNS,
    );
  });

  it('R-6: never throws, is deterministic and never pollutes prototypes on any input', () => {
    const key = fc.oneof(fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString'), fc.string());
    const anything = fc.anything({
      key,
      maxDepth: 3,
      withBigInt: true,
      withBoxedValues: true,
      withDate: true,
      withMap: true,
      withNullPrototype: true,
      withObjectString: true,
      withSet: true,
      withSparseArray: true,
      withTypedArray: true,
    });
    const prototypes = [Object.prototype, Array.prototype, Function.prototype];
    const prototypeKeys = (): string[][] => prototypes.map((p) => Object.getOwnPropertyNames(p).sort());
    const before = prototypeKeys();
    fc.assert(
      fc.property(anything, anything, (a, b) => {
        const first = isNotationVariant(a, b);
        expect(typeof first).toBe('boolean');
        expect(isNotationVariant(a, b)).toBe(first);
      }),
      DEFAULT_RUNS,
    );
    expect(prototypeKeys()).toEqual(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('R-6: every JSON value is a variant of itself (also compared field by field)', () => {
    fc.assert(
      fc.property(json, (value) => {
        const copy = structuredClone(value);
        return isNotationVariant(value, copy) && isNotationVariant({ k: value, extra: 1 }, { k: copy });
      }),
      DEFAULT_RUNS,
    );
  });
});

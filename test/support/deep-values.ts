/**
 * Deeply nested values, built without recursion, for the "costs no stack" tests. The unit tests nest
 * {@link STACK_DEEP} levels: a recursive walk overflows Node's default stack well before that (a
 * one-argument recursion ends near 11,000 frames), so it is enough to catch one. The scale project
 * (`test/scale/deep-values.test.ts`) nests 100,000 levels, as a hostile JSON argument can.
 */

/** Levels the unit tests nest: past the call stack of a recursive walk, cheap to build and walk. */
export const STACK_DEEP = 20_000;

/** `{ a: { a: ... leaf } }`. */
export function deepObject(levels: number, leaf: unknown): unknown {
  let value = leaf;
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}

/** `[[ ... leaf ]]`. */
export function deepArray(levels: number, leaf: unknown): unknown {
  let value = leaf;
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

/** Sets an own, enumerable property, even one named `__proto__` (as JSON.parse does). */
export function withOwn(entries: ReadonlyArray<readonly [string, unknown]>): Record<string, unknown> {
  const target: Record<string, unknown> = {};
  for (const [key, value] of entries)
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  return target;
}

/** `{ "__proto__": { "__proto__": ... leaf } }` with own `__proto__` keys (as JSON.parse builds them). */
export function deepOwnProto(levels: number, leaf: unknown): unknown {
  let value = leaf;
  for (let i = 0; i < levels; i++) value = withOwn([['__proto__', value]]);
  return value;
}

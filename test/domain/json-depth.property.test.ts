/**
 * `depthExceeds` decides whether an upstream answer is too deeply nested to forward: it must
 * agree with the plain recursive definition of depth on any JSON value, and stay iterative far beyond
 * the stack on deep ones, `__proto__` keys included.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { depthExceeds } from '../../src/domain/json.js';
import { STACK_DEEP, deepArray, deepObject, deepOwnProto } from '../support/deep-values.js';
import { propertyRuns } from '../support/property-runs.js';

/** Depth by definition: 0 for a primitive, 1 + the deepest member for an object or an array. */
function depth(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  const members: unknown[] = Array.isArray(value) ? value : Object.values(value);
  return 1 + Math.max(0, ...members.map(depth));
}

describe('depthExceeds', () => {
  it('is depth(value) > limit for every JSON value and limit', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 10 }), (value, limit) => {
        expect(depthExceeds(value, limit)).toBe(depth(value) > limit);
      }),
      { numRuns: propertyRuns(2000) },
    );
  });

  it('reads values far deeper than the stack, arrays, objects and own __proto__ keys alike', () => {
    for (const deep of [deepArray(STACK_DEEP, 1), deepObject(STACK_DEEP, 'x'), deepOwnProto(STACK_DEEP, null)]) {
      expect(depthExceeds(deep, STACK_DEEP - 1)).toBe(true);
      expect(depthExceeds(deep, STACK_DEEP + 1)).toBe(false);
    }
    expect(depthExceeds(JSON.parse('{"__proto__":{"__proto__":{"a":1}}}'), 2)).toBe(true);
    expect(depthExceeds(JSON.parse('{"__proto__":{"__proto__":{"a":1}}}'), 3)).toBe(false);
    expect(depthExceeds('text', 0)).toBe(false);
    expect(depthExceeds([], 0)).toBe(true);
  });
});

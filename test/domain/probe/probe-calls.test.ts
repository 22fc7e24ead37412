import { describe, expect, it } from 'vitest';
import { answerText, otherArguments, placeKey } from '../../../src/domain/probe/probe-calls.js';

describe('probe calls: arguments and answers', () => {
  it('places the key in the argument, in _meta, or nowhere', () => {
    const example = { amount: 5, idempotency_key: 'old' };
    expect(placeKey(example, 'idempotency_key', 'same', 'k1')).toEqual({
      arguments: { amount: 5, idempotency_key: 'k1' },
      meta: undefined,
    });
    expect(placeKey(example, 'idempotency_key', 'meta', 'k1')).toEqual({
      arguments: { amount: 5 },
      meta: { idempotency_key: 'k1' },
    });
    expect(placeKey(example, 'idempotency_key', 'none', 'k1')).toEqual({ arguments: { amount: 5 }, meta: undefined });
  });

  it('a key field named __proto__ stays an own argument, no prototype is changed', () => {
    const placed = placeKey({}, '__proto__', 'same', 'k');
    expect(Object.hasOwn(placed.arguments, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(placed.arguments)).toBe(Object.prototype);
  });

  it('changes one argument for P2, never the key, or answers null', () => {
    expect(otherArguments({ currency: 'EUR', amount: 5, idempotency_key: 'k' }, ['idempotency_key'])).toEqual({
      currency: 'EUR',
      amount: 6,
      idempotency_key: 'k',
    });
    expect(otherArguments({ name: 'a' }, [])).toEqual({ name: 'a-other' });
    expect(otherArguments({ on: true }, [])).toEqual({ on: false });
    expect(otherArguments({ idempotency_key: 'k', list: [1] }, ['idempotency_key'])).toBeNull();
  });

  it('an answer as text: the text contents and the structured content', () => {
    expect(answerText({ content: [{ type: 'text', text: 'a' }], structuredContent: { b: 1 } })).toBe('a\n{"b":1}');
  });
});

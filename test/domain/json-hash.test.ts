/**
 * `hashText` (cyrb53) and `hashJoined` share one set of steps: the fingerprints a report, a recording and
 * an effects snapshot hold stay what they were written as (the values below are the function's own from
 * before the two shared their steps), and hashing texts one by one equals hashing them joined.
 */
import { describe, expect, it } from 'vitest';
import { hashJoined, hashText } from '../../src/domain/json.js';

describe('hashText and hashJoined', () => {
  it('hashText gives the fingerprints it always gave', () => {
    expect(hashText('')).toBe('wvjl67o803');
    expect(hashText('create_booking')).toBe('ko62whur24');
    expect(hashText('{"a":1}\n{"b":2}')).toBe('1q8va85a8r2');
    expect(hashText('x', 7)).toBe('24v71mgu1g2');
  });

  it('hashJoined(texts) is hashText of the texts joined by line feeds, seed included', () => {
    expect(hashJoined(['{"a":1}', '{"b":2}'])).toBe('1q8va85a8r2');
    for (const texts of [[], [''], ['', ''], ['a'], ['a', 'b', 'ccc'], ['é', '\n', '']]) {
      expect(hashJoined(texts)).toBe(hashText(texts.join('\n')));
      expect(hashJoined(texts, 42)).toBe(hashText(texts.join('\n'), 42));
    }
  });
});

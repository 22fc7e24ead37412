import { describe, expect, it } from 'vitest';
import { globMatch } from '../../../src/domain/text/glob.js';

describe('globMatch', () => {
  it.each([
    ['create_*', 'create_booking', true],
    ['create_*', 'create_', true],
    ['create_*', 'create', false],
    ['create_*', 'xcreate_booking', false],
    ['*_booking', 'create_booking', true],
    ['*_booking', 'create_bookings', false],
    ['a*b*c', 'abc', true],
    ['a*b*c', 'aXXbYYc', true],
    ['a*b*c', 'acb', false],
    ['a*b*c', 'abcb', false],
    ['a*b*c', 'abcbc', true],
    ['*', 'anything', true],
    ['*', '', true],
    ['', '', true],
    ['', 'x', false],
    ['**', 'x', true],
    ['exact', 'exact', true],
    ['exact', 'exactly', false],
  ])('R-8.2: %j against %j is %s', (pattern, name, expected) => {
    expect(globMatch(pattern, name)).toBe(expected);
  });

  it('R-8.2: globs are case-sensitive', () => {
    expect(globMatch('create_*', 'Create_booking')).toBe(false);
    expect(globMatch('CREATE_*', 'create_booking')).toBe(false);
  });

  it.each([
    ['a.c', 'abc', false],
    ['a.c', 'a.c', true],
    ['a+', 'aa', false],
    ['a+', 'a+', true],
    ['f(x)*', 'f(x)_1', true],
    ['f(x', 'f(x', true],
    ['a?c', 'abc', false],
    ['[ab]', 'a', false],
    ['^a$', '^a$', true],
    ['a\\*', 'a\\zzz', true],
  ])('R-8.2: regex characters are literal (%j against %j is %s)', (pattern, name, expected) => {
    expect(globMatch(pattern, name)).toBe(expected);
  });

  it('R-8.2: 50 stars against a 10,000-character name is answered without blowing up', () => {
    const pattern = `${'a*'.repeat(50)}b`;
    expect(globMatch(pattern, 'a'.repeat(10_000))).toBe(false);
    expect(globMatch(pattern, `${'a'.repeat(10_000)}b`)).toBe(true);
    expect(globMatch('*'.repeat(50), 'x'.repeat(10_000))).toBe(true);
  });
});

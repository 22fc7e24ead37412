import { describe, expect, it } from 'vitest';
import { isNotationVariant, MAX_GREEDY_ELEMENTS, MAX_STEPS } from '../../../src/domain/judging/near-duplicate.js';
import { deepArray, deepObject, STACK_DEEP } from '../../support/deep-values.js';

const variant = (a: unknown, b: unknown): boolean => {
  const forward = isNotationVariant(a, b);
  expect(isNotationVariant(b, a)).toBe(forward);
  return forward;
};
const recognised = (a: unknown, b: unknown): void => expect(variant(a, b)).toBe(true);
const notRecognised = (a: unknown, b: unknown): void => expect(variant(a, b)).toBe(false);

describe('R-6 recognised: number and string', () => {
  it('R-6: "12" for 12', () => recognised({ qty: '12' }, { qty: 12 }));
  it('R-6: "1e3" for 1000', () => recognised({ qty: '1e3' }, { qty: 1000 }));
  it('R-6: "129.00" for 129', () => recognised({ amount: '129.00' }, { amount: 129 }));
  it('R-6: "129.00" equals "129"', () => recognised({ amount: '129.00' }, { amount: '129' }));
  it('R-6: "-0.0" equals "0" (plain decimals compare by value)', () => recognised(['-0.0'], ['0']));
  it('R-6: a numeric string with spaces for the number', () => recognised(' 12 ', 12));
  it('R-6: nested number and string ({items:[{unitPrice:"12.50"}]})', () => {
    recognised({ items: [{ unitPrice: '12.50' }] }, { items: [{ unitPrice: 12.5 }] });
  });
});

describe('R-6 recognised: text notation', () => {
  it('R-6: case', () => recognised({ name: 'Anna Muster' }, { name: 'ANNA muster' }));
  it('R-6: extra white space', () => recognised({ name: 'Anna  Muster ' }, { name: 'Anna Muster' }));
  it('R-6: missing white space', () => recognised({ name: 'AnnaMuster' }, { name: 'Anna Muster' }));
  it('R-6: different white space (tab, no-break space)', () => {
    recognised({ name: 'Anna\tMuster' }, { name: 'Anna\u00a0Muster' });
  });
  it('R-6: grouped IBAN', () => {
    recognised({ iban: 'CH93 0076 2011 6238 5295 7' }, { iban: 'CH9300762011623852957' });
  });
  it('R-6: NFC vs NFD', () => recognised({ city: 'Zu\u0308rich' }, { city: 'Z\u00fcrich' }));
  it('R-6: zero-width space', () => recognised({ name: 'Ann\u200ba' }, { name: 'Anna' }));
  it('R-6: soft hyphen', () => recognised({ word: 'Zimmer\u00adbuchung' }, { word: 'Zimmerbuchung' }));
  it('R-6: direction marks', () => recognised({ name: '\u200eAnna\u200f' }, { name: 'Anna' }));
  it('R-6: byte order mark', () => recognised({ name: '\ufeffAnna' }, { name: 'Anna' }));
  it('R-6: variation selector', () => {
    recognised({ note: '\u2764\ufe0f' }, { note: '\u2764' });
    recognised({ note: '\u845b\u{e0100}' }, { note: '\u845b' });
  });
  it('R-6: invisible character between a letter and its combining mark', () => {
    recognised('u\u200b\u0308', '\u00fc');
  });
  it('R-6: null instead of ""', () => {
    recognised({ note: null }, { note: '' });
    recognised({ note: '' }, { note: null });
  });
});

describe('R-6 recognised: structure', () => {
  it('R-6: order inside arrays', () => recognised({ rooms: [1, 2] }, { rooms: [2, 1] }));
  it('R-6: order of objects inside arrays, with notation changes', () => {
    const a = {
      items: [
        { sku: 'A', qty: 1 },
        { sku: 'B', qty: 2 },
      ],
    };
    const b = {
      items: [
        { sku: 'b', qty: '2' },
        { sku: 'a', qty: '1' },
      ],
    };
    recognised(a, b);
  });
  it('R-6: exactly equal elements are paired before near ones', () => {
    const short = { id: 1, x: 1 };
    const long = { id: 1, x: 1, y: 2, z: 3, w: 4 };
    const shortened = { id: 1, x: 1, y: 2 };
    recognised([short, long], [shortened, short]);
  });
  it('R-6: field added at top level', () => {
    recognised({ room: 101, guest: 'Anna' }, { room: 101, guest: 'Anna', note: 'late' });
  });
  it('R-6: field added in customer.email', () => {
    const a = { customer: { name: 'Anna', phone: '123' } };
    const b = { customer: { name: 'Anna', phone: '123', email: 'anna@example.org' } };
    recognised(a, b);
  });
  it('R-6: field added in items[1]', () => {
    const a = {
      items: [
        { sku: 'A', qty: 1 },
        { sku: 'B', qty: 2 },
      ],
    };
    const b = {
      items: [
        { sku: 'A', qty: 1 },
        { sku: 'B', qty: 2, unitPrice: 9.5 },
      ],
    };
    recognised(a, b);
  });
  it('R-6: field left out', () => {
    recognised({ room: 101, guest: 'Anna', note: 'x' }, { room: 101, guest: 'Anna' });
  });
  it('R-6: exactly half of the fields shared is enough', () => recognised({ a: 1 }, { a: 1, b: 2 }));
  it('R-6: renamed field with enough other fields equal triggers the half rule', () => {
    const a = { room: 101, guest: 'Anna', nights: 2, name: 'x' };
    const b = { room: 101, guest: 'Anna', nights: 2, fullName: 'x' };
    recognised(a, b);
  });
  it('R-6: two empty objects are equal', () => recognised({ a: {} }, { a: {}, b: 1 }));
  it('R-6: exactly equal values count too', () => recognised({ a: [1, { b: 'c' }] }, { a: [1, { b: 'c' }] }));
});

describe('R-6 not recognised', () => {
  it('R-6: not "0012" = "12"', () => notRecognised({ qty: '0012' }, { qty: '12' }));
  it('R-6: not "0012" for 12', () => notRecognised({ qty: '0012' }, { qty: 12 }));
  it('R-6: not "+1250" = "1250"', () => notRecognised({ amount: '+1250' }, { amount: '1250' }));
  it('R-6: not "+1250" for 1250', () => notRecognised({ amount: '+1250' }, { amount: 1250 }));
  it('R-6: not "1e3" = "1000"', () => notRecognised({ qty: '1e3' }, { qty: '1000' }));
  it('R-6: not true = "true"', () => notRecognised({ vip: true }, { vip: 'true' }));
  it('R-6: not punctuation', () => notRecognised({ ref: 'a-b' }, { ref: 'ab' }));
  it('R-6: not date formats', () => {
    notRecognised({ date: '2026-11-03' }, { date: '03.11.2026' });
    notRecognised({ date: '2026-11-03' }, { date: '20261103' });
  });
  it('R-6: not a changed value', () => {
    notRecognised({ room: 101, guest: 'Anna' }, { room: 102, guest: 'Anna' });
  });
  it('R-6: not a changed value next to an added field', () => {
    notRecognised({ room: 101, guest: 'Anna' }, { room: 101, guest: 'Ben', note: 'x' });
  });
  it('R-6: not an added array element', () => {
    notRecognised({ rooms: [1, 2] }, { rooms: [1, 2, 3] });
    notRecognised({ rooms: [1, 2] }, { rooms: [3, 1, 2] });
  });
  it('R-6: not a missing array element', () => {
    notRecognised({ rooms: [1, 2] }, { rooms: [1] });
    notRecognised({ rooms: [2] }, { rooms: [1, 2] });
  });
  it('R-6: not a changed sign ("-12" vs "12")', () => {
    notRecognised({ amount: '-12' }, { amount: '12' });
    notRecognised({ amounts: ['-12', '5'] }, { amounts: ['12', '5'] });
    recognised({ amount: '-12.50' }, { amount: -12.5 });
  });
  it('R-6: not a renamed field when fewer than half are equal', () => {
    notRecognised({ name: 'Anna', city: 'Bern' }, { fullName: 'Anna', city: 'Bern' });
  });
  it('R-6: not a field moved into a sub-object when fewer than half are equal', () => {
    const a = { id: 1, street: 'Main 1', city: 'Bern' };
    const b = { id: 1, address: { street: 'Main 1', city: 'Bern' } };
    notRecognised(a, b);
  });
  it('R-6: not a null for a non-empty string', () => notRecognised({ note: null }, { note: 'x' }));
  it('R-6: not different JSON types', () => {
    notRecognised({ a: {} }, { a: [] });
    notRecognised({ a: 1 }, { a: true });
    notRecognised({ a: null }, { a: 0 });
  });
});

describe('R-6 robustness', () => {
  // Direct calls (not `variant`): each walks the deep value's canonical text. 100,000 levels:
  // test/scale/deep-values.test.ts.
  it(`R-6: ${STACK_DEEP}-deep objects do not overflow the stack; deep levels match only when equal`, () => {
    expect(isNotationVariant(deepObject(STACK_DEEP, 1), deepObject(STACK_DEEP, '1'))).toBe(false);
    const deep = deepObject(STACK_DEEP, 1);
    expect(isNotationVariant({ x: 'A', deep }, { x: 'a', deep: deepObject(STACK_DEEP, 1) })).toBe(true);
  });
  it(`R-6: ${STACK_DEEP}-deep arrays do not overflow the stack`, () => {
    expect(isNotationVariant(deepArray(STACK_DEEP, 1), deepArray(STACK_DEEP, 2))).toBe(false);
    expect(isNotationVariant([deepArray(STACK_DEEP, 1), 'A'], ['a', deepArray(STACK_DEEP, 1)])).toBe(true);
  });
  it('R-6: notation is compared up to the depth budget', () => {
    recognised(deepObject(200, 1), deepObject(200, '1'));
  });
  it('R-6: a "__proto__" key neither pollutes nor is followed', () => {
    const hostile: unknown = JSON.parse('{"__proto__":{"polluted":1},"constructor":{"prototype":{"x":1}}}');
    const withPolluted = (value: string): unknown =>
      JSON.parse(`{"__proto__":{"polluted":${value}},"constructor":{"prototype":{"x":1}}}`);
    recognised(hostile, withPolluted('"1"'));
    notRecognised(hostile, withPolluted('2'));
    notRecognised(hostile, {});
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
  it('R-6: cycles terminate', () => {
    const a: Record<string, unknown> = { n: 1 };
    a.self = a;
    const b: Record<string, unknown> = { n: '1' };
    b.self = b;
    const list: unknown[] = [1];
    list.push(list);
    expect(() => variant(a, b)).not.toThrow();
    expect(() => variant(list, [list, 1])).not.toThrow();
    recognised(a, a);
  });
  it('R-6: values JSON cannot hold never throw', () => {
    recognised({ a: 10n }, { a: 10n });
    notRecognised({ a: 10n }, { a: 11n });
    expect(() => variant({ a: () => 1, b: Symbol('s') }, { a: undefined, b: Number.NaN })).not.toThrow();
    recognised([Number.NaN, 1], [1, Number.NaN]);
    notRecognised(undefined, 'x');
  });
  it('R-6: a Proxy whose traps throw gives false', () => {
    const trap = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error('trap');
        },
      },
    );
    notRecognised({ a: trap, b: 1 }, { a: {}, b: '1' });
  });
  it('R-6: large reordered arrays pair in linear time', () => {
    const a: object[] = Array.from({ length: 5_000 }, (_, i) => ({ sku: `S${i}`, qty: i }));
    const b = [...a].reverse().map((item) => ({ ...item }));
    b.push({ sku: 'S0', qty: 0 });
    a.push({ sku: 's0', qty: '0' });
    // Recognised only through the linear exact pairing: 5,000 elements are over the greedy step's cap.
    expect(a.length).toBeGreaterThan(MAX_GREEDY_ELEMENTS);
    recognised(a, b);
  });
  it('R-6: more than 2,000 elements left for greedy pairing is not a variant', () => {
    const numbers = Array.from({ length: 2_001 }, (_, i) => 1000 + i);
    const exponents = numbers.map((n) => `${n / 1000}e3`);
    notRecognised(numbers, exponents);
    recognised(numbers.slice(0, 500), exponents.slice(0, 500).reverse());
  });
  it('R-6: the work budget bounds greedy pairing (at the price of a missed variant)', () => {
    const numbers = Array.from({ length: 2_000 }, (_, i) => 1000 + i);
    const exponents = numbers.map((n) => `${n / 1000}e3`).reverse();
    // 2,000 × 2,000 greedy comparisons would be 4 million steps: the budget stops them (no wall clock needed).
    expect(numbers.length * numbers.length).toBeGreaterThan(MAX_STEPS);
    expect(isNotationVariant(numbers, exponents)).toBe(false);
  });
});

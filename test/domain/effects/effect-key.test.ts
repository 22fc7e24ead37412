import { describe, expect, it } from 'vitest';
import {
  keyIdentity,
  keyObject,
  meetsExpectation,
  parseEffectKey,
  parseExpectation,
  recordKey,
} from '../../../src/domain/effects/effect-key.js';

describe('effects: the effect key and expected effects', () => {
  it('parses --effect-key fields, trimmed; empty or repeated fields are one clear error', () => {
    expect(parseEffectKey('guest, date')).toEqual({ ok: true, value: ['guest', 'date'] });
    expect(parseEffectKey('')).toMatchObject({ ok: false, error: expect.stringContaining('comma-separated') });
    expect(parseEffectKey('guest,,date')).toMatchObject({ ok: false });
    expect(parseEffectKey('guest,guest')).toEqual({
      ok: false,
      error: "--effect-key 'guest,guest': the field 'guest' is named twice",
    });
  });

  it('parses --expect-effect with every key field; a value may hold a comma', () => {
    const key = ['guest', 'date'];
    expect(parseExpectation('guest=Ann Lee,date=2026-05-01', key)).toEqual({
      ok: true,
      value: { text: 'guest=Ann Lee,date=2026-05-01', values: ['Ann Lee', '2026-05-01'] },
    });
    expect(parseExpectation('date=2026-05-01, guest=Lee, Ann', key)).toMatchObject({
      ok: true,
      value: { values: ['Lee, Ann', '2026-05-01'] },
    });
    expect(parseExpectation('guest=a=b,date=x', key)).toMatchObject({ ok: true, value: { values: ['a=b', 'x'] } });
  });

  it('refuses an expectation without a key field, with another field first, or with a field twice', () => {
    const key = ['guest', 'date'];
    expect(parseExpectation('guest=Ann', key)).toEqual({
      ok: false,
      error: "--expect-effect 'guest=Ann': the key field(s) date are missing (the key is guest,date)",
    });
    expect(parseExpectation('room=1,guest=Ann,date=x', key)).toMatchObject({
      ok: false,
      error: expect.stringContaining('field=value'),
    });
    expect(parseExpectation('guest=a,guest=b,date=x', key)).toMatchObject({
      ok: false,
      error: expect.stringContaining("'guest' is given twice"),
    });
  });

  it('reads a record key as stored; a record without a key field names the field', () => {
    expect(recordKey({ guest: 'Ann', date: '2026-05-01', id: 1 }, ['guest', 'date'])).toEqual({
      ok: true,
      values: ['Ann', '2026-05-01'],
    });
    expect(recordKey({ guest: 'Ann' }, ['guest', 'date'])).toEqual({ ok: false, missing: 'date' });
    expect(recordKey('a line', ['guest'])).toEqual({ ok: false, missing: 'guest' });
    expect(recordKey({ guest: undefined }, ['guest'])).toEqual({ ok: true, values: [undefined] });
  });

  it('compares values as stored: 129 and "129" are two keys; objects by canonical JSON', () => {
    expect(keyIdentity([129])).not.toBe(keyIdentity(['129']));
    expect(keyIdentity([{ a: 1, b: 2 }])).toBe(keyIdentity([{ b: 2, a: 1 }]));
  });

  it('an expectation matches a stored value by its text', () => {
    const amount = parseExpectation('amount=129', ['amount']);
    if (!amount.ok) throw new Error(amount.error);
    expect(meetsExpectation([129], amount.value)).toBe(true);
    expect(meetsExpectation(['129'], amount.value)).toBe(true);
    expect(meetsExpectation([1290], amount.value)).toBe(false);
    const flag = parseExpectation('paid=true', ['paid']);
    if (!flag.ok) throw new Error(flag.error);
    expect(meetsExpectation([true], flag.value)).toBe(true);
    expect(meetsExpectation(['true'], flag.value)).toBe(true);
  });

  it('__proto__ as a key field is an own field: read from records, kept in keys, no prototype changed', () => {
    const record = JSON.parse('{"__proto__":"Ann","date":"d"}') as unknown;
    expect(recordKey(record, ['__proto__', 'date'])).toEqual({ ok: true, values: ['Ann', 'd'] });
    expect(recordKey({ date: 'd' }, ['__proto__'])).toEqual({ ok: false, missing: '__proto__' });
    const key = keyObject(['__proto__'], [{ polluted: true }]);
    expect(Object.hasOwn(key, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(key)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(parseExpectation('__proto__=x', ['__proto__'])).toMatchObject({ ok: true, value: { values: ['x'] } });
  });
});

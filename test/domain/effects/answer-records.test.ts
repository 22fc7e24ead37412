import { describe, expect, it } from 'vitest';
import { countItems, parseRecordPath, readAnswerItems, utf8Length } from '../../../src/domain/effects/answer-records.js';

const text = (...texts: string[]) => ({ content: texts.map((t) => ({ type: 'text', text: t })) });

describe('effects: reading records from a tool answer (one reader for effects and probe --count-with)', () => {
  it('reads structuredContent first, then the text as a JSON array or an object of arrays', () => {
    expect(readAnswerItems({ structuredContent: { items: [{ a: 1 }] }, content: [] })).toEqual({
      ok: true,
      value: { items: [{ a: 1 }], form: 'json', bytes: utf8Length('{"items":[{"a":1}]}') },
    });
    expect(readAnswerItems(text('[{"a":1},{"a":2}]'))).toMatchObject({ ok: true, value: { items: [{ a: 1 }, { a: 2 }] } });
    expect(readAnswerItems(text('{"entities":[1,2],"relations":[3],"total":3}'))).toMatchObject({
      ok: true,
      value: { items: [1, 2, 3] },
    });
  });

  it('structuredContent without records falls back to the text', () => {
    expect(readAnswerItems({ structuredContent: { total: 1 }, ...text('[7]') })).toMatchObject({
      ok: true,
      value: { items: [7] },
    });
  });

  it('reads JSON lines as records and other text as plain lines', () => {
    expect(readAnswerItems(text('{"a":1}\n\n{"a":2}\n'))).toMatchObject({
      ok: true,
      value: { items: [{ a: 1 }, { a: 2 }], form: 'json' },
    });
    expect(readAnswerItems(text('[FILE] a.txt\n[FILE] b.txt\n'))).toMatchObject({
      ok: true,
      value: { items: ['[FILE] a.txt', '[FILE] b.txt'], form: 'lines' },
    });
  });

  it('R-15.1: one JSON object on one line ending in a newline is JSON lines of one record (a ledger after one write)', () => {
    expect(readAnswerItems(text('{"seq":1,"arguments":{"guest":"Ann"}}\n'), ['arguments'])).toMatchObject({
      ok: true,
      value: { items: [{ guest: 'Ann' }], form: 'json' },
    });
    expect(readAnswerItems(text('{"guest":"Ann"}\n'))).toMatchObject({ ok: true, value: { items: [{ guest: 'Ann' }] } });
    // Without the newline it stays one JSON answer with nothing to list.
    expect(readAnswerItems(text('{"guest":"Ann"}'))).toMatchObject({ ok: false });
  });

  it('adds up several text contents', () => {
    expect(readAnswerItems(text('[1]', '[2,3]'))).toMatchObject({ ok: true, value: { items: [1, 2, 3] } });
  });

  it('steps into a path a.b, in the whole JSON, in structuredContent and in each JSON line', () => {
    const path = parseRecordPath('data.bookings');
    expect(path).toEqual(['data', 'bookings']);
    expect(readAnswerItems(text('{"data":{"bookings":[{"id":1}],"other":[2]}}'), path)).toMatchObject({
      ok: true,
      value: { items: [{ id: 1 }] },
    });
    expect(readAnswerItems({ structuredContent: { data: { bookings: [1, 2] } } }, path)).toMatchObject({
      ok: true,
      value: { items: [1, 2] },
    });
    expect(readAnswerItems(text('{"data":{"bookings":[1]}}\n{"data":{"bookings":[2,3]}}'), path)).toMatchObject({
      ok: true,
      value: { items: [[1], [2, 3]] },
    });
    expect(parseRecordPath(undefined)).toEqual([]);
    expect(parseRecordPath('  ')).toEqual([]);
  });

  it('a path that is not there, or text that is no JSON under a path, is a reason', () => {
    expect(readAnswerItems(text('{"data":{}}'), ['data', 'bookings'])).toEqual({
      ok: false,
      reason: "the answer has no field 'data.bookings'",
    });
    expect(readAnswerItems(text('plain words'), ['data'])).toEqual({
      ok: false,
      reason: "the answer is not JSON, so it has no field 'data'",
    });
    expect(readAnswerItems(text('{"data":{"n":1}}'), ['data'])).toEqual({
      ok: false,
      reason: "'data' is JSON but neither an array nor an object with arrays",
    });
  });

  it('__proto__ is read as an own field only, never through the prototype', () => {
    expect(readAnswerItems(text('{"__proto__":[1,2]}'))).toMatchObject({ ok: true, value: { items: [1, 2] } });
    expect(readAnswerItems(text('{"__proto__":{"x":[5]}}'), ['__proto__', 'x'])).toMatchObject({
      ok: true,
      value: { items: [5] },
    });
    expect(readAnswerItems(text('{"a":[1]}'), ['constructor'])).toEqual({
      ok: false,
      reason: "the answer has no field 'constructor'",
    });
    expect(readAnswerItems(text('[1]'), ['__proto__'])).toMatchObject({ ok: false });
  });

  it('an error answer, no text, JSON without arrays are reasons, and count as null', () => {
    expect(readAnswerItems({ ...text('[1]'), isError: true })).toEqual({ ok: false, reason: 'the tool answered with isError' });
    expect(readAnswerItems({ content: [{ type: 'image', data: '' }] })).toEqual({
      ok: false,
      reason: 'the answer has no text content to read records from',
    });
    expect(readAnswerItems('nope')).toEqual({ ok: false, reason: 'the answer is not a tool result' });
    expect(readAnswerItems(text('{"total":3}'))).toMatchObject({ ok: false });
    expect(countItems({ ...text('[1]'), isError: true })).toBeNull();
    expect(countItems(text('{"total":3}'))).toBeNull();
    expect(countItems({ content: [{ type: 'image', data: '' }] })).toBeNull();
  });

  it('counts as probe --count-with always did: an array, the arrays of an object, or non-JSON lines', () => {
    expect(countItems(text('[1,2,3]'))).toBe(3);
    expect(countItems(text('{"entities":[1,2],"relations":[3]}'))).toBe(3);
    expect(countItems(text('[FILE] a.txt\n[FILE] b.txt\n'))).toBe(2);
    expect(countItems({ structuredContent: { items: [1] }, content: [] })).toBe(1);
  });

  it('measures text in UTF-8 bytes', () => {
    expect(utf8Length('aé€😀')).toBe(1 + 2 + 3 + 4);
    expect(readAnswerItems(text('["é"]'))).toMatchObject({ ok: true, value: { bytes: 6 } });
  });
});

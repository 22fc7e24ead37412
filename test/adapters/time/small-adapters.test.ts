import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/adapters/time/manual-clock.js';
import { createPinoLogger, recordText } from '../../../src/adapters/logging/pino-logger.js';
import { SeededRandom, systemRandom } from '../../../src/adapters/time/seeded-random.js';
import { SystemClock } from '../../../src/adapters/time/system-clock.js';

describe('SystemClock', () => {
  it('Clock: never decreases and reads close to Date.now()', () => {
    const clock = new SystemClock();
    let previous = clock.now();
    for (let i = 0; i < 10_000; i += 1) {
      const current = clock.now();
      expect(current).toBeGreaterThanOrEqual(previous);
      previous = current;
    }
    expect(Math.abs(clock.now() - Date.now())).toBeLessThan(1000);
  });
});

describe('ManualClock', () => {
  it('Clock: advances and jumps by hand, never backwards', () => {
    const clock = new ManualClock(100);
    expect(clock.now()).toBe(100);
    expect(clock.advance(50)).toBe(150);
    clock.set(1000);
    expect(clock.now()).toBe(1000);
    expect(() => clock.advance(-1)).toThrow(RangeError);
    expect(() => clock.set(999)).toThrow(RangeError);
    expect(() => clock.advance(Number.NaN)).toThrow(RangeError);
    expect(clock.now()).toBe(1000);
  });
});

describe('SeededRandom (reproducible chaos)', () => {
  it('the same seed gives the same sequence, matching the reference mulberry32', () => {
    const first = SeededRandom.fromSeed(42);
    const second = SeededRandom.fromSeed(42);
    const a = Array.from({ length: 1000 }, () => first.next());
    const b = Array.from({ length: 1000 }, () => second.next());
    expect(a).toEqual(b);
    expect(a.slice(0, 3)).toEqual([0.6011037519201636, 0.44829055899754167, 0.8524657934904099]);
  });

  it('values are in [0, 1) and spread out; other seeds differ', () => {
    const random = SeededRandom.fromSeed(7);
    const values = Array.from({ length: 10_000 }, () => random.next());
    expect(values.every((v) => v >= 0 && v < 1)).toBe(true);
    const mean = values.reduce((sum, v) => sum + v, 0) / values.length;
    expect(mean).toBeGreaterThan(0.45);
    expect(mean).toBeLessThan(0.55);
    expect(SeededRandom.fromSeed(8).next()).not.toBe(SeededRandom.fromSeed(7).next());
  });

  it('seeds are taken modulo 2^32 and systemRandom reports a reproducible seed', () => {
    expect(SeededRandom.fromSeed(2 ** 32 + 5).seed).toBe(5);
    expect(SeededRandom.fromSeed(-1).seed).toBe(2 ** 32 - 1);
    const random = systemRandom();
    expect(Number.isInteger(random.seed)).toBe(true);
    const replay = SeededRandom.fromSeed(random.seed);
    expect([random.next(), random.next()]).toEqual([replay.next(), replay.next()]);
  });
});

describe('createPinoLogger', () => {
  it('one text line per record, written at once: level, message, the fields (strings as they are, the rest as JSON); no time or pid', () => {
    const lines: string[] = [];
    const logger = createPinoLogger('debug', (line) => lines.push(line));
    logger.debug({ step: 1 }, 'first');
    logger.warn({ tool: 'create_order', keys: ['a', 'b'], nested: { n: 1 } }, 'second');
    logger.info({}, 'third');
    expect(lines).toEqual([
      'debug: first (step: 1)',
      'warn: second (tool: create_order, keys: ["a","b"], nested: {"n":1})',
      'info: third',
    ]);
  });

  it('honours the level: info hides debug, silent writes nothing', () => {
    const shown: string[] = [];
    const info = createPinoLogger('info', (line) => shown.push(line));
    info.debug({}, 'hidden');
    info.error({}, 'shown');
    const nothing: string[] = [];
    createPinoLogger('silent', (line) => nothing.push(line)).error({ a: 1 }, 'nothing');
    expect(shown).toEqual(['error: shown']);
    expect(nothing).toEqual([]);
  });

  it('recordText: a line that is not a record is kept as it is; an unknown level is named by its number', () => {
    expect(recordText('not json\n')).toBe('not json');
    expect(recordText('{"level":35,"msg":"m"}')).toBe('level 35: m');
  });
});

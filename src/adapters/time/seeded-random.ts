import { randomInt } from 'node:crypto';
import type { RandomSource } from '../../ports/random.port.js';

const TWO_POW_32 = 4294967296;

/**
 * A reproducible random source: mulberry32 (Tommy Ettinger's 32-bit generator, public domain), one
 * 32-bit word of state advanced by the odd constant 0x6d2b79f5 and mixed by two multiply-xorshift
 * rounds. Period 2^32, fast, good enough for picking faults; not for cryptography. The same seed gives
 * the same sequence on every platform, so a chaos run can be repeated from its seed.
 */
export class SeededRandom implements RandomSource {
  private state: number;

  /** @param seed the 32-bit seed this source started from (reported so a run can be repeated). */
  private constructor(readonly seed: number) {
    this.state = seed;
  }

  /** A source seeded with `seed`, taken modulo 2^32 (a non-integer seed is truncated). */
  static fromSeed(seed: number): SeededRandom {
    if (!Number.isFinite(seed)) throw new RangeError(`seed must be a finite number, got ${seed}`);
    return new SeededRandom(Math.trunc(seed) >>> 0);
  }

  /** The next number in [0, 1), a multiple of 2^-32. */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let mixed = this.state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / TWO_POW_32;
  }
}

/** A SeededRandom with a seed from `crypto.randomInt`; its `seed` lets the run be repeated. */
export function systemRandom(): SeededRandom {
  return SeededRandom.fromSeed(randomInt(0, TWO_POW_32));
}

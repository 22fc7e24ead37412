/** Uniform random numbers: declared by the domain (`src/domain/time-and-chance.ts`), re-exported for adapters. */
export type { RandomSource } from '../domain/time-and-chance.js';

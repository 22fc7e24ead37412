/** Time as the harness sees it: declared by the domain (`src/domain/time-and-chance.ts`), re-exported for adapters. */
export type { Clock } from '../domain/time-and-chance.js';

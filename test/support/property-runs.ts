/**
 * How many cases a property test generates. A `*.property.test.ts` file runs in two projects: in `unit`
 * with a tenth of its cases (at least 10), so the project stays fast, and in `scale` with all of them
 * (its config sets HARNESS_TEST_SIZE=full). Each property passes its number to `fc.assert`: fast-check's
 * global settings (`fc.configureGlobal`) would reach every file run after it in the same worker, since the
 * `unit` project does not isolate its files (docs/development.md, "A unit test leaves no state").
 */
const FULL = process.env['HARNESS_TEST_SIZE'] === 'full';

/** The cases to generate for a property whose full number is `full`. */
export function propertyRuns(full: number): number {
  return FULL ? full : Math.max(10, Math.ceil(full / 10));
}

/** For a property without a number of its own: fast-check's default, 100, sized as above. */
export const DEFAULT_RUNS = { numRuns: propertyRuns(100) } as const;

/**
 * How many cases a property test generates. A `*.property.test.ts` file runs in two projects: in `unit`
 * with a tenth of its cases (at least 10), so the project stays fast, and in `scale` with all of them
 * (its config sets HARNESS_TEST_SIZE=full). Importing this module sets fast-check's default (100 cases)
 * the same way for the importing file (each test file has its own modules); a property that names its
 * number of cases passes it through {@link propertyRuns}.
 */
import fc from 'fast-check';

const FULL = process.env['HARNESS_TEST_SIZE'] === 'full';

/** The cases to generate for a property whose full number is `full`. */
export function propertyRuns(full: number): number {
  return FULL ? full : Math.max(10, Math.ceil(full / 10));
}

fc.configureGlobal({ ...fc.readConfigureGlobal(), numRuns: propertyRuns(100) });

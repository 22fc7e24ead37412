import { configDefaults, defineConfig } from 'vitest/config';
import SlowestFilesReporter from './test/support/slowest-files-reporter.js';

/** What the unit projects leave to the others. */
const UNIT_EXCLUDE = [...configDefaults.exclude, 'test/integration/**', 'test/scale/**'];
/** A unit test file that needs fresh modules (see the `unit-isolated` project). */
const ISOLATED = 'test/**/*.isolated.test.ts';
/**
 * What the docs and the examples show, run as a user would (the `examples` project): every shell block of
 * the README and docs/, the CI pipelines of examples/ci, the framework agent programs of examples/agents and
 * the slice of docs/frameworks.md. Together a good half of the suite's time, so `npm test` leaves them to
 * `npm run test:examples`, which `.ci/run` (the README's test command) runs after it.
 */
const EXAMPLES = [
  'e2e/docs-commands.e2e.test.ts',
  'e2e/ci-examples.e2e.test.ts',
  'e2e/trial-frameworks.e2e.test.ts',
  'e2e/frameworks-doc.e2e.test.ts',
];

export default defineConfig({
  test: {
    // The ten slowest test files at the end of a run (test/support/slowest-files-reporter.ts), then the
    // default reporter's summary, which stays the last lines.
    reporters: [new SlowestFilesReporter(), 'default'],
    // Most tests wait on real processes (fixture upstreams, the compiled CLI) rather than compute, so four
    // workers keep two cores busy (vitest's default is one worker per core minus one: a single worker here).
    maxWorkers: 4,
    projects: [
      {
        test: {
          name: 'unit',
          // Pure: no process, no listening socket (pure-guard.ts refuses both). Without isolation: the files
          // of one worker share its modules, which makes the project three to four times faster, so a file
          // leaves no state behind (leak-guard.ts fails one that does; restoreMocks and unstubEnvs undo
          // spies and vi.stubEnv) and a file that needs fresh modules is a `*.isolated.test.ts`, run by
          // `unit-isolated`. Workers are never shared between projects, so nothing reaches another project.
          // See docs/development.md, "A unit test leaves no state", and docs/architecture.md.
          include: ['test/**/*.test.ts'],
          exclude: [...UNIT_EXCLUDE, ISOLATED],
          isolate: false,
          restoreMocks: true,
          unstubEnvs: true,
          unstubGlobals: true,
          setupFiles: ['test/support/pure-guard.ts', 'test/support/leak-guard.ts'],
          // A guard against hangs, not a performance bound.
          testTimeout: 30_000,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'unit-isolated',
          // Unit tests that need a module graph of their own, each file in a fresh worker (vitest's
          // default): e.g. one that registers a fault before the flag modules load.
          include: [ISOLATED],
          exclude: UNIT_EXCLUDE,
          setupFiles: ['test/support/pure-guard.ts'],
          testTimeout: 30_000,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'scale',
          // Pure like `unit`, at full size: the 30,000-session summary, 100,000-deep values, a 64 MiB input,
          // each with a small-N twin in `unit` that proves the same rule in milliseconds; and the property
          // tests again with all their generated cases (`unit` runs a tenth: test/support/property-runs.ts).
          include: ['test/scale/**/*.test.ts', 'test/**/*.property.test.ts'],
          exclude: [...configDefaults.exclude, 'test/integration/**'],
          env: { HARNESS_TEST_SIZE: 'full' },
          setupFiles: ['test/support/pure-guard.ts'],
          // A guard against hangs, not a performance bound: on a loaded 2-core machine building 30,000
          // judged sessions takes a minute.
          testTimeout: 180_000,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'integration',
          // The project's code in this process in front of real processes and sockets: fixture upstreams,
          // servers on 127.0.0.1, the agent program runner.
          include: ['test/integration/**/*.test.ts'],
          testTimeout: 30_000,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['e2e/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...EXAMPLES],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // e2e tests spawn the compiled CLI; they run after the unit and integration tests.
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          // Not run by `npm test` (`--project '!examples'`): `npm run test:examples`, after it in `.ci/run`.
          name: 'examples',
          include: EXAMPLES,
          testTimeout: 60_000,
          hookTimeout: 60_000,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});

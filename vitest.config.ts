import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Most tests wait on real processes (fixture upstreams, the compiled CLI) rather than compute, so four
    // workers keep two cores busy (vitest's default is one worker per core minus one: a single worker here).
    maxWorkers: 4,
    projects: [
      {
        test: {
          name: 'unit',
          // Pure: no process, no listening socket (the setup file refuses both; each file runs in a fresh
          // worker, vitest's `isolate`, so the refusal never reaches another project). See docs/architecture.md.
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'test/integration/**', 'test/scale/**'],
          setupFiles: ['test/support/pure-guard.ts'],
          // A guard against hangs, not a performance bound.
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
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // e2e tests spawn the compiled CLI; they run after the unit and integration tests.
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});

import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Most tests wait on real processes (fixture upstreams, the compiled CLI) rather than compute, so four
    // workers keep two cores busy (vitest's default is one worker per core minus one: a single worker here).
    maxWorkers: 4,
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          // A guard against hangs, not a performance bound: on a loaded 2-core machine a test that builds
          // 30,000 reports or drives a real upstream needs more than vitest's default 5 s.
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
          // e2e tests spawn the compiled CLI; they run after the unit tests.
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});

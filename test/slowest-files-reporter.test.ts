/**
 * The reporter that ends a vitest run with the ten slowest test files (test/support/slowest-files-reporter.ts,
 * in vitest.config.ts beside the default reporter): which files, in which order, with what split.
 */
import { describe, expect, it } from 'vitest';
import { fileTimeOf, slowestFileLines, type FileTime } from './support/slowest-files-reporter.js';

const file = (name: string, loadMs: number, testsMs: number, project = 'unit'): FileTime => ({
  file: name,
  project,
  loadMs,
  testsMs,
});

describe('the slowest test files at the end of a run', () => {
  it('lists the ten slowest by load + tests, slowest first, aligned, with the split and the project', () => {
    const files = Array.from({ length: 12 }, (_, i) => file(`test/f${i}.test.ts`, 100, i * 1000));
    files.push(file('e2e/docs-commands.e2e.test.ts', 1200, 82_000, 'e2e'));
    const lines = slowestFileLines(files);
    expect(lines).toHaveLength(11);
    expect(lines[0]).toBe('Slowest 10 of 13 test files (load + tests; files run side by side, so these overlap):');
    expect(lines[1]).toBe('  83.2 s  e2e   e2e/docs-commands.e2e.test.ts (load 1.2 s, tests 82.0 s)');
    expect(lines[2]).toBe('  11.1 s  unit  test/f11.test.ts (load 0.1 s, tests 11.0 s)');
    expect(lines[10]).toBe('   3.1 s  unit  test/f3.test.ts (load 0.1 s, tests 3.0 s)');
  });

  it('says nothing for a run of one file, and counts loading (environment, setup, import) apart from the tests', () => {
    expect(slowestFileLines([file('test/a.test.ts', 1, 2)])).toEqual([]);
    const module = {
      relativeModuleId: 'test/a.test.ts',
      project: { name: 'unit' },
      diagnostic: () => ({ environmentSetupDuration: 1, prepareDuration: 2, setupDuration: 3, collectDuration: 4, duration: 50 }),
    } as unknown as Parameters<typeof fileTimeOf>[0];
    expect(fileTimeOf(module)).toEqual({ file: 'test/a.test.ts', project: 'unit', loadMs: 10, testsMs: 50 });
  });
});

/**
 * A vitest reporter beside the default one (vitest.config.ts): at the end of a run of more than one test
 * file it prints the ten slowest, each with its project and where its time went (loading the file and its
 * imports, then its tests and hooks), so whoever adds tests sees what the suite's time is made of
 * (docs/development.md, "Where the suite's time goes"). It prints before the default reporter's summary,
 * which stays the last lines of the run.
 */
import type { Reporter, TestModule } from 'vitest/node';

/** What the reporter reads of a test file (a `TestModule`'s part), so the lines can be built without vitest. */
export interface FileTime {
  /** The file, relative to the project root. */
  file: string;
  project: string;
  /** Loading it: the environment, the setup files and the file with its imports (ms). */
  loadMs: number;
  /** Its tests and hooks (ms). */
  testsMs: number;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The lines for the `limit` slowest files (by load + tests), slowest first; none for a run of one file. */
export function slowestFileLines(files: readonly FileTime[], limit = 10): string[] {
  if (files.length < 2) return [];
  const total = (f: FileTime) => f.loadMs + f.testsMs;
  const slowest = [...files].sort((a, b) => total(b) - total(a) || a.file.localeCompare(b.file)).slice(0, limit);
  const width = Math.max(...slowest.map((f) => seconds(total(f)).length));
  const project = Math.max(...slowest.map((f) => f.project.length));
  return [
    `Slowest ${slowest.length} of ${files.length} test files (load + tests; files run side by side, so these overlap):`,
    ...slowest.map(
      (f) =>
        `  ${seconds(total(f)).padStart(width)}  ${f.project.padEnd(project)}  ${f.file} (load ${seconds(f.loadMs)}, tests ${seconds(f.testsMs)})`,
    ),
  ];
}

/** A test module's times, as `slowestFileLines` reads them. */
export function fileTimeOf(module: TestModule): FileTime {
  const d = module.diagnostic();
  return {
    file: module.relativeModuleId,
    project: module.project.name,
    loadMs: d.environmentSetupDuration + d.prepareDuration + d.setupDuration + d.collectDuration,
    testsMs: d.duration,
  };
}

export default class SlowestFilesReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const lines = slowestFileLines(modules.filter((m) => m.state() !== 'skipped').map(fileTimeOf));
    if (lines.length > 0) process.stdout.write(`\n${lines.join('\n')}\n`);
  }
}

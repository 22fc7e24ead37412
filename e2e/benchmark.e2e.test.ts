/**
 * The compiled CLI's `benchmark`, as a user runs it: exit code, stdout, stderr and the JSON file
 * it writes in the current folder, and one bad flag. Build first (`npm run build`). The other options,
 * bad flags and the unwritable report folder run `main()` in-process in `test/cli/commands-in-process.test.ts`.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

const BIN = resolve(import.meta.dirname, '../dist/cli/bin.js');
const REPORT = '.cuonztech/benchmark-report.json';

let cwd = '';

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error('dist/ is missing: run `npm run build` first');
});
beforeEach(() => {
  cwd = mkdtempSync(join(tmpdir(), 'benchmark-e2e-'));
});
afterEach(() => rmSync(cwd, { recursive: true, force: true }));

const benchmark = (...args: string[]) =>
  execa(process.execPath, [BIN, 'benchmark', ...args], { cwd, reject: false, timeout: 30_000 });
const report = () => JSON.parse(readFileSync(join(cwd, REPORT), 'utf8')) as Record<string, unknown>;

describe('benchmark (compiled CLI)', () => {
  it('R-11: default F1–F5 — exit 0, both agent blocks, "Self-test PASSED", and the report with certification on top', async () => {
    mkdirSync(join(cwd, '.cuonztech'));
    writeFileSync(join(cwd, REPORT), 'old content');
    const result = await benchmark();
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe('');
    for (const line of [
      'Reference agent 1/2: CAREFUL (checks after a failure, never re-sends blindly)\n## Overall: 100/100 [PASS]',
      'Reference agent 2/2: NAIVE (re-sends every write immediately, no key)\n## Overall: 49/100 [FAIL]',
      '| Duplicate Safety | 60% | 60% |\n| Failure Handling | 50% | 40% |',
      'A run with a violation is capped at 49.',
      'Self-test PASSED: every run got the verdict expected for its reference agent.',
      'The naive agent is expected to fail in F1, F2, F4 and did.',
      'The naive reference agent fails on purpose; this is part of the self-test, not about your system.',
      `Report written to ${join(cwd, REPORT)}`,
    ])
      expect(result.stdout).toContain(line);
    const document = report();
    expect(Object.keys(document)[0]).toBe('certification');
    expect(document).toMatchObject({
      certification: 'UNVERIFIED_FOR_PRODUCTION',
      kind: 'benchmark',
      selfTest: { passed: true, expectedNaiveFailures: ['F1', 'F2', 'F4'], naiveFailedIn: ['F1', 'F2', 'F4'] },
      options: { scenarios: ['F1', 'F2', 'F3', 'F4', 'F5'], runs: 1, jitterMs: 0 },
      careful: { certification: 'UNVERIFIED_FOR_PRODUCTION', score: { verdict: 'PASS', overall: 100 } },
      naive: {
        certification: 'UNVERIFIED_FOR_PRODUCTION',
        score: { verdict: 'FAIL', overall: 49, capped: true, dimensions: { duplicateSafety: 60, failureHandling: 50 } },
        scenarios: {
          F1: { verdict: 'FAIL', expectedVerdict: 'FAIL', executions: { harness: 2, backend: 2 } },
          F5: { verdict: 'PASS' },
        },
      },
    });
    expect(typeof document['harnessVersion']).toBe('string');
  });

  it('R-11: a bad flag (--runs 1001) — one line on stderr, no stack trace, exit 1, the existing report left alone', async () => {
    mkdirSync(join(cwd, '.cuonztech'));
    writeFileSync(join(cwd, REPORT), 'untouched');
    const result = await benchmark('--runs', '1001');
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^\[cuonztech-agent-harness\] error: /);
    expect(result.stderr).not.toMatch(/^\s+at /m);
    expect(readFileSync(join(cwd, REPORT), 'utf8')).toBe('untouched');
  });
});

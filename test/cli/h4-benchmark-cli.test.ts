/**
 * `benchmark` through `main(argv, io)` in-process, in a temporary current folder: the options
 * reach the run and the report file, the maximum --runs is accepted, bad flags leave the existing report
 * alone, and a report folder that cannot be created is one line. The compiled CLI's default run (exit
 * code, stdout, stderr, the file) and one spawned bad flag stay in `e2e/benchmark.e2e.test.ts`.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/h4-in-process-cli.js';

const REPORT = '.cuonztech/benchmark-report.json';

let cwd = '';
beforeEach(() => {
  cwd = mkdtempSync(join(tmpdir(), 'h4-benchmark-'));
});
afterEach(() => rmSync(cwd, { recursive: true, force: true }));

const benchmark = (...args: string[]) => runCli(['benchmark', ...args], { cwd });
const report = () => JSON.parse(readFileSync(join(cwd, REPORT), 'utf8')) as Record<string, unknown>;

describe('benchmark (in-process CLI)', () => {
  it('R-11: --scenarios f3,F5 --runs 3 --jitter 60000 — same verdicts, naive expected to fail in none', async () => {
    const result = await benchmark('--scenarios', 'f3,F5', '--runs=3', '--jitter', '60000');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('The naive agent is expected to fail in none of F3, F5 and did not.');
    expect(report()).toMatchObject({
      options: { scenarios: ['F3', 'F5'], runs: 3, jitterMs: 60000 },
      selfTest: { passed: true, expectedNaiveFailures: [] },
      naive: { score: { verdict: 'PASS' }, scenarios: { F3: { verdict: 'PASS', runs: 3 }, F5: { verdict: 'PASS', runs: 3 } } },
    });
  });

  it('R-11: --runs 1000 is accepted (the maximum)', async () => {
    const result = await benchmark('--runs', '1000', '--scenarios', 'F1');
    expect(result.code).toBe(0);
    expect(report()).toMatchObject({ options: { runs: 1000 }, naive: { scenarios: { F1: { runs: 1000, verdict: 'FAIL' } } } });
  });

  it.each([
    [['--runs', '1001']],
    [['--runs', '1e3']],
    [['--jitter', '60001']],
    [['--scenarios', 'F1,f1']],
    [['--runs']],
    [['--seed', '3']],
    [['extra']],
  ])('R-11: bad flags %j — one line on stderr, exit 1, the existing report left alone', async (args) => {
    mkdirSync(join(cwd, '.cuonztech'));
    writeFileSync(join(cwd, REPORT), 'untouched');
    const result = await benchmark(...args);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^\[cuonztech-agent-harness\] error: /);
    expect(result.stderr).not.toMatch(/^\s+at /m);
    expect(readFileSync(join(cwd, REPORT), 'utf8')).toBe('untouched');
  });

  it('R-11: a report folder that cannot be created is one error line and exit 1', async () => {
    writeFileSync(join(cwd, '.cuonztech'), 'a file, not a folder');
    const result = await benchmark('--scenarios', 'F1');
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('benchmark report not written');
  });
});

/**
 * `check` and `stats` refuse an input file over the documented limit (MAX_INPUT_BYTES,
 * docs/commands/check.md) by its size, before reading it: sixteen sparse 400 MB files read at once used to abort the
 * process (V8 out of memory, exit 134, no outputs). Sparse files (truncate) in a temp folder cost no disk.
 */
import { existsSync, readFileSync, truncateSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_INPUT_BYTES } from '../../src/adapters/files/report-files/regular-file.js';
import { runCli } from '../support/in-process-cli.js';
import { carefulF1, documentOf, tempFiles } from '../support/report-docs.js';

let files: ReturnType<typeof tempFiles> | undefined;
afterEach(() => {
  files?.remove();
  files = undefined;
});

/** A sparse file of `bytes` bytes (no disk blocks). */
function sparse(name: string, bytes: number): string {
  const path = files!.write(name, '');
  truncateSync(path, bytes);
  return path;
}

const MB400 = 400 * 1024 * 1024;

describe('check and stats: an input file over the size limit is refused by its size', () => {
  it('check: sixteen sparse 400 MB reports in a folder are sixteen harness errors naming each file, exit 1, the JUnit written', async () => {
    files = tempFiles({ 'reports/careful.json': documentOf(carefulF1()) });
    const big = Array.from({ length: 16 }, (_, i) => sparse(`reports/big-${String(i).padStart(2, '0')}.json`, MB400));
    const junit = files.path('junit.xml');
    const result = await runCli(['check', files.path('reports'), '--junit', junit], { cwd: files.dir, env: {} });
    expect(result.code).toBe(1);
    for (const path of big)
      expect(result.stdout).toContain(`${path}: the file is 400.0 MiB: over the 64 MiB limit of an input file`);
    expect(result.stdout).toMatch(/^PASS {7}.*careful\.json/m);
    expect(readFileSync(junit, 'utf8')).toContain('over the 64 MiB limit');
  });

  it('check: one byte over the limit is refused (a report at the limit is read: test/scale/input-size-limit.test.ts)', async () => {
    files = tempFiles();
    const over = sparse('over.json', MAX_INPUT_BYTES + 1);
    const result = await runCli(['check', over], { cwd: files.dir, env: {} });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`${over}: the file is 64.0 MiB: over the 64 MiB limit of an input file`);
  });

  it('stats: a sparse 400 MB run file in a trial folder, or report in a report folder, is one line naming it, exit 1, nothing written', async () => {
    files = tempFiles({
      'trial/summary.json': JSON.stringify({ kind: 'trial-summary', harnessVersion: '0.7.0', doneRuns: 1 }),
      'reports/careful.json': documentOf(carefulF1()),
    });
    const run = sparse('trial/runs/F1-001/run.json', MB400);
    const report = sparse('reports/big.json', MB400);
    const out = files.path('stats.json');
    for (const [folder, path] of [
      ['trial', run],
      ['reports', report],
    ] as const) {
      const result = await runCli(['stats', files.path(folder), '--json', out], { cwd: files.dir, env: {} });
      expect(result.code).toBe(1);
      expect(result.stderr.trim().split('\n')).toEqual([
        `[cuonztech-agent-harness] ${path} is 400.0 MiB: over the 64 MiB limit of an input file`,
      ]);
      expect(existsSync(out)).toBe(false);
    }
  });
});

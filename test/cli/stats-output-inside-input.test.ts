/**
 * `stats --json/--markdown` naming a file inside a folder being merged (e.g. `stats out --json
 * out/summary.json`): refused with one line, exit 1, before anything is read or written — it would
 * overwrite the trial's own summary, or leave a file the next `stats` over that folder refuses as foreign.
 * And a file named where a folder is expected: the line says which folders the command takes.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/in-process-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'harness-stats-out-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('stats outputs', () => {
  it('an output file inside a merged folder is refused; the folder is left as it was', async () => {
    const trial = join(dir, 'trial');
    mkdirSync(join(trial, 'runs'), { recursive: true });
    writeFileSync(join(trial, 'summary.json'), '{"kind":"trial-summary"}');
    for (const [flag, file] of [
      ['--json', join(trial, 'summary.json')],
      ['--markdown', join(trial, 'runs', 'x.md')],
      ['--json', 'trial/stats.json'],
    ] as const) {
      const result = await runCli(['stats', 'other', './trial/', flag, file], { cwd: dir });
      expect(result.code, result.stderr).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(
          new RegExp(
            `^\\[cuonztech-agent-harness\\] error: ${flag} .* is inside ./trial/, a folder being merged; write it elsewhere$`,
          ),
        ),
      ]);
    }
    expect(readFileSync(join(trial, 'summary.json'), 'utf8')).toBe('{"kind":"trial-summary"}');
    expect(existsSync(join(trial, 'runs', 'x.md')) || existsSync(join(trial, 'stats.json'))).toBe(false);
  });
});

describe('a file where a folder is expected', () => {
  it('stats and check --max-duplicate-rate name the folders they take, one line, exit 1', async () => {
    const file = join(dir, 'report.json');
    writeFileSync(file, '{}');
    const stats = await runCli(['stats', file], { cwd: dir });
    expect(stats.code).toBe(1);
    expect(stats.stderr).toMatch(
      /report\.json is not a folder: give trial folders \(trial --out\) or folders of proxy reports \(--report-dir\)\n$/,
    );
    const check = await runCli(['check', file, '--max-duplicate-rate', '0.05'], { cwd: dir });
    expect(check.code).toBe(1);
    expect(check.stderr).toMatch(/rate gates: .*report\.json is not a folder: give trial folders \(trial --out\)/);
  });
});

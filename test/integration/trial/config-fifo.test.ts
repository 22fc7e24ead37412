/**
 * `trial --config` given a FIFO: refused by its kind, never waited on (a FIFO needs `mkfifo`, a process,
 * so this case lives here; the other unreadable files: test/cli/trial-config.test.ts).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../../support/in-process-cli.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'harness-trial-config-fifo-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

it.skipIf(process.platform === 'win32')('a config file that is a FIFO: one line, exit 1, nothing created', async () => {
  execFileSync('mkfifo', [join(dir, 'fifo.yaml')]);
  const out = join(dir, 'out');
  const result = await runCli(['trial', '--config', 'fifo.yaml', '--out', out], { cwd: dir });
  expect(result.code, result.stderr).toBe(1);
  expect(result.stdout).toBe('');
  expect(result.stderr).toBe(
    '[cuonztech-agent-harness] error: config file fifo.yaml is a FIFO (named pipe), not a regular file\n',
  );
  expect(existsSync(out)).toBe(false);
});

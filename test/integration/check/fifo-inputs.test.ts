/**
 * `check` on FIFOs (made with `mkfifo`, a process): a FIFO must not hang the gate. The other inputs that are
 * not regular files: test/cli/check-inputs.test.ts. In-process: `runCli` drives `main` as the binary does.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdirSync, openSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../support/in-process-cli.js';
import { carefulF1, documentOf, naiveF1, tempFiles } from '../../support/report-docs.js';

let files: ReturnType<typeof tempFiles> | undefined;
const fifos: string[] = [];
afterEach(() => {
  // Before the fix a reader blocked in open(2) on a FIFO holds a thread of the pool: let it go.
  for (const fifo of fifos.splice(0)) {
    try {
      closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {
      // no reader waiting
    }
  }
  files?.remove();
  files = undefined;
});

function mkfifo(name: string): string {
  const path = files!.path(name);
  execFileSync('mkfifo', [path]);
  fifos.push(path);
  return path;
}

const check = (...args: string[]) => runCli(['check', ...args], { cwd: files!.dir, env: {} });

describe.skipIf(process.platform === 'win32')('check: paths that are not regular files (R-9.1)', () => {
  it('R-9.1: a FIFO named as a report is a harness error at once, not a gate that hangs forever', async () => {
    files = tempFiles({ 'careful.json': documentOf(carefulF1()) });
    const fifo = mkfifo('pipe.json');
    const result = await check(files.path('careful.json'), fifo);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`ERROR      ${fifo}: the file cannot be read: a FIFO (named pipe), not a regular file`);
    expect(result.stdout).toMatch(/^PASS {7}.*careful\.json/m);
  });

  it('R-9.1: a FIFO among the *.json files of a report folder is one harness error, the other reports still read', async () => {
    files = tempFiles({ 'out/careful.json': documentOf(carefulF1()), 'out/naive.json': documentOf(naiveF1()) });
    mkfifo('out/stray.json');
    const result = await check(files.path('out'));
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('stray.json: the file cannot be read: a FIFO (named pipe), not a regular file');
    expect(result.stdout).toMatch(/^FAIL {7}.*naive\.json/m);
  });

  it('R-9.1: a trial folder whose run file is a FIFO does not hang either', async () => {
    files = tempFiles({ 'trial/summary.json': '{"kind":"trial-summary"}' });
    mkdirSync(files.path('trial/runs/F1-001'), { recursive: true });
    mkfifo('trial/runs/F1-001/run.json');
    const result = await check(files.path('trial'));
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('run.json: the file cannot be read: a FIFO (named pipe), not a regular file');
  });

  it('R-9.1: --journal naming a FIFO is one line and exit 1, never a hang', async () => {
    files = tempFiles({ 'careful.json': documentOf(carefulF1()) });
    const fifo = mkfifo('journal.jsonl');
    const result = await check(files.path('careful.json'), '--html', files.path('r.html'), '--journal', fifo);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^\[cuonztech-agent-harness\] error: journal cannot be read: .*a FIFO \(named pipe\), not a regular file\)?\n$/,
    );
  });
});

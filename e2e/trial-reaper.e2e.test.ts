/**
 * R-8.8's reaper, for the agent programs: a trial killed outright (SIGKILL, an out-of-memory kill) while the user's
 * agent program runs leaves nothing of that program behind. The program runs in its own process group;
 * the reaper the proxy uses for its upstream watches that group and ends it (SIGTERM after the grace,
 * then SIGKILL) when the harness dies without doing it. The trial is a real process here, the agent
 * program a shell that starts a background process of its own and waits.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { isAlive, waitFor } from './fixtures/lib/raw-child.mjs';
import { expectProcessesGone, reapersOf } from './faults/nothing-lost.js';
import { BIN, ROOT } from '../test/support/proxy-harness.js';
import { BOOKING_UPSTREAM, TASK, tempOut } from '../test/support/trial-harness.js';

function pidsIn(file: string): number[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map(Number);
}

describe('R-8.8 trial --agent-command: the harness dies, the agent program does not outlive it', () => {
  it('SIGKILL of the trial while its agent program runs: the program and the process it started end', async () => {
    const out = tempOut();
    const pidFile = join(out, 'agent.pids');
    const program = `echo $$ >> '${pidFile}'; sleep 300 & echo $! >> '${pidFile}'; wait`;
    const child = execa(
      process.execPath,
      [
        BIN,
        'trial',
        '--agent-command',
        'sh',
        '--agent-arg',
        '-c',
        '--agent-arg',
        program,
        ...TASK,
        ...BOOKING_UPSTREAM,
        '--scenario',
        'F1',
        '--runs',
        '1',
        '--out',
        out,
      ],
      { reject: false, cwd: ROOT, stdin: 'ignore', timeout: 50_000, extendEnv: true, env: {} },
    );
    try {
      const pids = await waitFor(() => (pidsIn(pidFile).length === 2 ? pidsIn(pidFile) : undefined), 20_000, 'the agent program');
      expect(pids.every(isAlive)).toBe(true);
      // The program's group (its pid: it leads its own) is watched by one reaper while it runs.
      await waitFor(() => reapersOf(pids[0]!).length === (process.platform === 'linux' ? 1 : 0), 10_000, 'the reaper');
      child.kill('SIGKILL');
      await child;
      // The reaper waits the grace period (2 s) before SIGTERM, as the harness itself would (generous
      // bound: on a loaded 2-core machine the shell's sleeps and kills wait for a CPU).
      await expectProcessesGone(pids, 30_000);
      await waitFor(() => reapersOf(pids[0]!).length === 0, 10_000, 'the reaper to exit');
    } finally {
      child.kill('SIGKILL');
      rmSync(out, { recursive: true, force: true });
    }
  });
});

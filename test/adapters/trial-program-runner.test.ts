/**
 * The agent program runner of `trial --agent-command` (issue 13): a run owns the program's whole process
 * group, so what the program left behind when it exited — a background helper, a server it never
 * stopped — is ended with it instead of outliving the run (and the next N runs adding their own).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ProgramRunner } from '../../src/adapters/agent-program/index.js';

vi.setConfig({ testTimeout: 30_000 });

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

let dir: string;
const leftovers: number[] = [];
afterEach(() => {
  for (const pid of leftovers.splice(0)) if (alive(pid)) process.kill(pid, 'SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('ProgramRunner', () => {
  it('ends the processes the agent program left in its group when it exited (exit code and output kept)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'harness-program-'));
    const exit = await new ProgramRunner().run({
      command: 'sh',
      args: ['-c', 'sleep 60 & echo $! > helper.pid; echo done; exit 0'],
      env: {},
      cwd: dir,
      timeoutMs: 30_000,
      logDir: dir,
    });
    expect(exit).toMatchObject({ exitCode: 0, timedOut: false });
    expect(readFileSync(join(dir, 'agent.stdout.log'), 'utf8')).toBe('done\n');
    const helper = Number(readFileSync(join(dir, 'helper.pid'), 'utf8'));
    leftovers.push(helper);
    await vi.waitFor(() => expect(alive(helper)).toBe(false), { timeout: 10_000, interval: 20 });
  });

  it('an abort (a second signal to the trial) ends the program group as a time-out does, without waiting for --agent-timeout', async () => {
    dir = mkdtempSync(join(tmpdir(), 'harness-program-'));
    const stop = new AbortController();
    const running = new ProgramRunner().run({
      command: 'sh',
      args: ['-c', 'echo started; sleep 60'],
      env: {},
      cwd: dir,
      timeoutMs: 600_000,
      logDir: dir,
      signal: stop.signal,
    });
    await vi.waitFor(() => expect(readFileSync(join(dir, 'agent.stdout.log'), 'utf8')).toBe('started\n'), { interval: 20 });
    stop.abort('SIGINT');
    expect(await running).toMatchObject({ exitCode: null, signal: 'SIGTERM', timedOut: false });
  });
});

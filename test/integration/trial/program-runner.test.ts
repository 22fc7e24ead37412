/**
 * The agent program runner of `trial --agent-command`: a run owns the program's whole process
 * group, so what the program left behind when it exited — a background helper, a server it never
 * stopped — is ended with it instead of outliving the run (and the next N runs adding their own).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ProgramRunner } from '../../../src/adapters/agent-program/index.js';
import { droppedLine, KEEP_HEAD_BYTES, KEEP_TAIL_BYTES } from '../../../src/adapters/agent-program/output-capture.js';

const FLOODING_AGENT = fileURLToPath(new URL('../../../e2e/fixtures/trial-agents/flooding-agent.mjs', import.meta.url));

/** The first offset where `bytes` differ from the flooding agent's pattern (byte k = k % 251) from `start`; -1 if none. */
function patternMismatch(bytes: Uint8Array, start: number): number {
  for (let i = 0; i < bytes.length; i++) if (bytes[i] !== (start + i) % 251) return i;
  return -1;
}

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

  it("forward mode: the real key's variable is taken out of the harness's environment the program inherits", async () => {
    dir = mkdtempSync(join(tmpdir(), 'harness-program-'));
    process.env['HARNESS_TEST_REAL_KEY'] = 'sk-never-for-the-program';
    try {
      const exit = await new ProgramRunner().run({
        command: 'sh',
        args: ['-c', 'echo "key=${HARNESS_TEST_REAL_KEY:-unset} run=$RUN_VAR"'],
        env: { RUN_VAR: 'set' },
        withoutEnv: ['HARNESS_TEST_REAL_KEY'],
        cwd: dir,
        timeoutMs: 30_000,
        logDir: dir,
      });
      expect(exit).toMatchObject({ exitCode: 0 });
      expect(readFileSync(join(dir, 'agent.stdout.log'), 'utf8')).toBe('key=unset run=set\n');
    } finally {
      delete process.env['HARNESS_TEST_REAL_KEY'];
    }
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

  it('on time-out the whole group ends, not only the program: a helper it started is gone too', async () => {
    dir = mkdtempSync(join(tmpdir(), 'harness-program-'));
    const exit = await new ProgramRunner().run({
      command: 'sh',
      args: ['-c', 'sleep 60 & echo $! > helper.pid; echo started; sleep 60'],
      env: {},
      cwd: dir,
      timeoutMs: 1_000,
      logDir: dir,
    });
    expect(exit).toMatchObject({ exitCode: null, signal: 'SIGTERM', timedOut: true });
    const helper = Number(readFileSync(join(dir, 'helper.pid'), 'utf8'));
    leftovers.push(helper);
    await vi.waitFor(() => expect(alive(helper)).toBe(false), { timeout: 10_000, interval: 20 });
  });

  it('a helper that left the group but still holds the output pipes does not hold the run: it ends when the program exits', async () => {
    dir = mkdtempSync(join(tmpdir(), 'harness-program-'));
    const exit = await new ProgramRunner().run({
      command: 'sh',
      args: ['-c', 'setsid sleep 60 & echo $! > helper.pid; echo done; exit 3'],
      env: {},
      cwd: dir,
      timeoutMs: 30_000,
      logDir: dir,
    });
    leftovers.push(Number(readFileSync(join(dir, 'helper.pid'), 'utf8')));
    // Well before the helper's 60 s: the run waited for the program's exit, not for its pipes to close.
    expect(exit).toMatchObject({ exitCode: 3, timedOut: false });
    expect(exit.durationMs).toBeLessThan(30_000);
    expect(readFileSync(join(dir, 'agent.stdout.log'), 'utf8')).toBe('done\n');
  });

  it('the reset command: its exit code and stderr tail; what it started in the background keeps running (it may be the upstream)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'harness-program-'));
    const exit = await new ProgramRunner().shell('sleep 60 & echo $! > server.pid; echo reset failed >&2; exit 2', dir, 30_000);
    const server = Number(readFileSync(join(dir, 'server.pid'), 'utf8'));
    leftovers.push(server);
    expect(exit).toMatchObject({ exitCode: 2, signal: null, timedOut: false, stderrTail: 'reset failed\n' });
    expect(alive(server)).toBe(true);
  });

  it('a reset command that runs over its time: what it started ends with it (its group, as for the agent program)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'harness-program-'));
    const exit = await new ProgramRunner().shell('sleep 60 & echo $! > server.pid; sleep 60', dir, 1_000);
    const server = Number(readFileSync(join(dir, 'server.pid'), 'utf8'));
    leftovers.push(server);
    expect(exit).toMatchObject({ exitCode: null, signal: 'SIGTERM', timedOut: true });
    await vi.waitFor(() => expect(alive(server)).toBe(false), { timeout: 10_000, interval: 20 });
  });

  it('a program that cannot be started: the reason, no exit code', async () => {
    dir = mkdtempSync(join(tmpdir(), 'harness-program-'));
    const exit = await new ProgramRunner().run({
      command: join(dir, 'no-such-agent'),
      args: [],
      env: {},
      cwd: dir,
      timeoutMs: 30_000,
      logDir: dir,
    });
    expect(exit).toMatchObject({ exitCode: null, signal: null, timedOut: false, spawnError: expect.stringContaining('ENOENT') });
  });

  it('an agent that floods its output: each log keeps its first and last 8 MB with the count of bytes dropped between them; all of it is read', async () => {
    dir = mkdtempSync(join(tmpdir(), 'harness-program-'));
    const stdoutBytes = 40 * 1024 * 1024 + 12_345;
    const stderrBytes = 12 * 1024 * 1024;
    const exit = await new ProgramRunner().run({
      command: process.execPath,
      args: [FLOODING_AGENT, String(stdoutBytes), String(stderrBytes)],
      env: {},
      cwd: dir,
      timeoutMs: 60_000,
      logDir: dir,
    });
    // It wrote everything and exited by itself: the harness read both pipes to their end.
    expect(exit).toMatchObject({ exitCode: 0, timedOut: false });
    expect(exit.stderrTail.endsWith('flood done\n')).toBe(true);
    const out = readFileSync(join(dir, 'agent.stdout.log'));
    const dropped = stdoutBytes - KEEP_HEAD_BYTES - KEEP_TAIL_BYTES;
    const note = Buffer.from(droppedLine(dropped, KEEP_HEAD_BYTES, KEEP_TAIL_BYTES));
    expect(note.toString()).toBe(
      `\n[cuonztech-agent-harness: ${dropped} bytes dropped here; this log keeps the first 8388608 and the last 8388608 bytes of the stream]\n`,
    );
    expect(out.length).toBe(KEEP_HEAD_BYTES + note.length + KEEP_TAIL_BYTES);
    expect(patternMismatch(out.subarray(0, KEEP_HEAD_BYTES), 0)).toBe(-1);
    expect(out.subarray(KEEP_HEAD_BYTES, KEEP_HEAD_BYTES + note.length).equals(note)).toBe(true);
    expect(patternMismatch(out.subarray(KEEP_HEAD_BYTES + note.length), stdoutBytes - KEEP_TAIL_BYTES)).toBe(-1);
    // 12 MB fit in the 16 MB kept: the whole stream, nothing dropped, no note.
    const err = readFileSync(join(dir, 'agent.stderr.log'));
    expect(err.length).toBe(stderrBytes + 'flood done\n'.length);
    expect(patternMismatch(err.subarray(0, stderrBytes), 0)).toBe(-1);
    expect(err.subarray(stderrBytes).toString()).toBe('flood done\n');
  });
});

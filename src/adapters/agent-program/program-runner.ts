/**
 * Runs the user's agent program (and the reset command) for one trial run: its own process group, the
 * harness's environment plus the run's variables, stdout and stderr kept in the run's folder (at most the
 * first and the last 8 MB of each, `output-capture.ts`), the tail of stderr for the NOT_TESTED reason; on time-out SIGTERM to the whole group, 2 s, SIGKILL. When the agent
 * program exits, what it left in its group (a background helper, a server it never stopped) gets the same
 * SIGTERM, then SIGKILL: nothing of a run outlives it. The reset command's group is left alone (it may
 * start the upstream in the background on purpose). If the harness itself dies (SIGKILL, out of memory)
 * while an agent program runs, the reaper the proxy uses for its upstream (`../stdio-upstream/reaper.ts`)
 * ends the program's group the same way; it is disarmed once the group has been ended.
 *
 * `node:child_process` rather than execa: execa's time-out and cancel signal end only the process it
 * started (not its group), its `maxBuffer` ends the program instead of keeping the first and last bytes,
 * and its promise waits for the pipes to close, which a helper that left the group (or the reset
 * command's background upstream) keeps open: the run must end at the program's exit. The tests of
 * `test/integration/trial-program-runner.test.ts` hold each of these.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { ProgramExit, ProgramRunner as ProgramRunnerPort, ProgramSpec } from '../../ports/program-runner.port.js';
import { Reaper } from '../stdio-upstream/reaper.js';
import { OutputCapture } from './output-capture.js';

export type { ProgramExit, ProgramSpec };

const TAIL_CHARS = 2_000;
const KILL_GRACE_MS = 2_000;

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

/**
 * After the leader exited: SIGTERM to what is left of its group and, only if something was, SIGKILL after
 * the grace; then `ended()`.
 */
function endLeftovers(child: ChildProcess, ended: () => void): void {
  if (child.pid === undefined) return ended();
  const group = -child.pid;
  try {
    process.kill(group, 'SIGTERM');
  } catch {
    return ended(); // nothing left
  }
  setTimeout(() => {
    try {
      process.kill(group, 'SIGKILL');
    } catch {
      // ended on SIGTERM
    }
    ended();
  }, KILL_GRACE_MS).unref();
}

function wait(
  child: ChildProcess,
  spec: { timeoutMs: number; endGroupOnExit: boolean; signal?: AbortSignal | undefined; reaper?: Reaper | undefined },
  logDir: string | null,
): Promise<ProgramExit> {
  const started = performance.now();
  let tail = '';
  let timedOut = false;
  const logs =
    logDir === null || child.stdout === null || child.stderr === null
      ? []
      : [
          new OutputCapture(join(logDir, 'agent.stdout.log'), child.stdout),
          new OutputCapture(join(logDir, 'agent.stderr.log'), child.stderr),
        ];
  child.stderr?.on('data', (chunk: Buffer) => {
    // Only the end of a chunk can reach the tail (a flood of stderr is not decoded whole).
    tail = (tail + chunk.subarray(-TAIL_CHARS * 4).toString('utf8')).slice(-TAIL_CHARS);
  });
  // Without logs the output is still read (a program blocked on a full pipe would never exit), and dropped.
  if (logs.length === 0) child.stdout?.resume();
  return new Promise((resolvePromise) => {
    let killTimer: NodeJS.Timeout | undefined;
    const end = () => {
      if (killTimer !== undefined) return;
      killGroup(child, 'SIGTERM');
      killTimer = setTimeout(() => killGroup(child, 'SIGKILL'), KILL_GRACE_MS);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      end();
    }, spec.timeoutMs);
    spec.signal?.addEventListener('abort', end, { once: true });
    if (spec.signal?.aborted === true) end();
    const finish = (exit: Omit<ProgramExit, 'stderrTail' | 'durationMs' | 'timedOut'>) => {
      clearTimeout(timer);
      spec.signal?.removeEventListener('abort', end);
      if (spec.endGroupOnExit && exit.spawnError === undefined) endLeftovers(child, () => spec.reaper?.disarm());
      else spec.reaper?.disarm();
      // Grandchildren may still hold the pipes: read what is there, then stop listening.
      for (const log of logs) log.drain();
      setTimeout(() => {
        if (killTimer !== undefined) clearTimeout(killTimer);
        child.stdout?.destroy();
        child.stderr?.destroy();
        void Promise.all(logs.map((log) => log.close())).then(() =>
          resolvePromise({ ...exit, timedOut, stderrTail: tail, durationMs: performance.now() - started }),
        );
      }, 50);
    };
    child.once('error', (error) => finish({ exitCode: null, signal: null, spawnError: error.message }));
    child.once('exit', (code, signal) => finish({ exitCode: code, signal }));
  });
}

export class ProgramRunner implements ProgramRunnerPort {
  async run(spec: ProgramSpec): Promise<ProgramExit> {
    const env = { ...process.env };
    for (const name of spec.withoutEnv ?? []) delete env[name];
    const child = spawn(spec.command, [...spec.args], {
      cwd: spec.cwd,
      env: { ...env, ...spec.env },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const reaper = child.pid === undefined ? undefined : Reaper.watch(child.pid, KILL_GRACE_MS);
    return wait(child, { timeoutMs: spec.timeoutMs, endGroupOnExit: true, signal: spec.signal, reaper }, spec.logDir);
  }

  async shell(commandLine: string, cwd: string, timeoutMs: number): Promise<ProgramExit> {
    const child = spawn(commandLine, { cwd, env: process.env, shell: true, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    return wait(child, { timeoutMs, endGroupOnExit: false }, null);
  }
}

/**
 * Runs the user's agent program (and the reset command) for one trial run: its own process group, the
 * harness's environment plus the run's variables, stdout and stderr kept in the run's folder (at most the
 * first and the last 8 MB of each, `output-capture.ts`), the tail of stderr for the NOT_TESTED reason. When
 * the agent program exits, what it left in its group (a background helper, a server it never stopped) gets
 * SIGTERM, then SIGKILL after 2 s: nothing of a run outlives it. The reset command's group is left alone
 * (it may start the upstream in the background on purpose) unless it ran over its time. If the harness
 * itself dies (SIGKILL, out of memory) while an agent program runs, the reaper the proxy uses for its
 * upstream (`../processes/reaper.ts`) ends the program's group the same way; it is disarmed once the
 * group has been ended.
 *
 * execa starts the program (`detached: true`: the leader of a new group), sets its environment and folder,
 * and ends it on time-out or abort: SIGTERM, then SIGKILL after 2 s (`timeout`, `cancelSignal`,
 * `forceKillAfterDelay`); its result gives the exit code, the signal, whether it timed out and how long it
 * ran. Kept here, because execa does not do it:
 *
 * - the process group: execa signals only the process it started. Once that leader has exited (by itself,
 *   or ended on time-out or abort), the rest of its group gets SIGTERM, 2 s, SIGKILL (`process.kill(-pid)`).
 *   So on time-out the group's other processes get their SIGTERM when the leader has gone, not with it.
 * - the output: execa's `maxBuffer` ends the program when its output is too long, and keeps the start; a run
 *   keeps the program running and keeps the start and the end of each stream in a file (`buffer: false`,
 *   `OutputCapture` reads the pipes). The stderr tail is read from the same pipe.
 * - the end of the run at the program's exit: execa's result waits for the pipes to close, which a helper
 *   that left the group (or the reset command's background upstream) may hold open for as long as it
 *   lives. At the leader's exit what is in the pipes is read, then they are closed, and execa resolves.
 *
 * `test/integration/trial/program-runner.test.ts` holds each of these.
 */
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import type { ProgramExit, ProgramRunner as ProgramRunnerPort, ProgramSpec } from '../../ports/program-runner.port.js';
import { Reaper } from '../processes/reaper.js';
import { OutputCapture } from './output-capture.js';

export type { ProgramExit, ProgramSpec };

const TAIL_CHARS = 2_000;
const KILL_GRACE_MS = 2_000;
/** After the leader's exit, how long what is already in the pipes is read before they are closed. */
const PIPE_DRAIN_MS = 50;

/** Options every program gets from execa: its own group, no stdin, pipes read here, no rejection. */
const COMMON = {
  detached: true,
  stdin: 'ignore',
  stdout: 'pipe',
  stderr: 'pipe',
  buffer: false,
  reject: false,
  forceKillAfterDelay: KILL_GRACE_MS,
} as const;

/**
 * SIGTERM to what is left of the group `pid` leads and, only if something was, SIGKILL after the grace;
 * then `ended()`.
 */
function endGroup(pid: number, ended: () => void): void {
  try {
    process.kill(-pid, 'SIGTERM');
  } catch {
    return ended(); // nothing left
  }
  setTimeout(() => {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // ended on SIGTERM
    }
    ended();
  }, KILL_GRACE_MS).unref();
}

type Subprocess = ResultPromise<typeof COMMON>;

async function wait(
  subprocess: Subprocess,
  spec: { endGroupOnExit: boolean; reaper?: Reaper | undefined },
  logDir: string | null,
): Promise<ProgramExit> {
  const { stdout, stderr } = subprocess;
  let tail = '';
  const logs =
    logDir === null
      ? []
      : [
          new OutputCapture(join(logDir, 'agent.stdout.log'), stdout),
          new OutputCapture(join(logDir, 'agent.stderr.log'), stderr),
        ];
  stderr.on('data', (chunk: Buffer) => {
    // Only the end of a chunk can reach the tail (a flood of stderr is not decoded whole).
    tail = (tail + chunk.subarray(-TAIL_CHARS * 4).toString('utf8')).slice(-TAIL_CHARS);
  });
  // Without logs the output is still read (a program blocked on a full pipe would never exit), and dropped.
  if (logs.length === 0) stdout.resume();
  subprocess.once('exit', () => {
    // Grandchildren may still hold the pipes: read what is there, then close them.
    for (const log of logs) log.drain();
    setTimeout(() => {
      stdout.destroy();
      stderr.destroy();
    }, PIPE_DRAIN_MS);
  });
  const result = await subprocess;
  const pid = subprocess.pid;
  const disarm = () => spec.reaper?.disarm();
  if (pid !== undefined && (spec.endGroupOnExit || result.timedOut || result.isCanceled)) endGroup(pid, disarm);
  else disarm();
  await Promise.all(logs.map((log) => log.close()));
  const spawnError = pid === undefined ? (result.cause instanceof Error ? result.cause.message : result.shortMessage) : undefined;
  return {
    exitCode: result.exitCode ?? null,
    signal: result.signal ?? null,
    timedOut: result.timedOut,
    ...(spawnError !== undefined ? { spawnError } : {}),
    stderrTail: tail,
    durationMs: result.durationMs,
  };
}

export class ProgramRunner implements ProgramRunnerPort {
  async run(spec: ProgramSpec): Promise<ProgramExit> {
    const env = { ...process.env };
    for (const name of spec.withoutEnv ?? []) delete env[name];
    const subprocess = execa(spec.command, [...spec.args], {
      ...COMMON,
      cwd: spec.cwd,
      env: { ...env, ...spec.env },
      extendEnv: false,
      timeout: spec.timeoutMs,
      ...(spec.signal !== undefined ? { cancelSignal: spec.signal } : {}),
    });
    const reaper = subprocess.pid === undefined ? undefined : Reaper.watch(subprocess.pid, KILL_GRACE_MS);
    return wait(subprocess, { endGroupOnExit: true, reaper }, spec.logDir);
  }

  async shell(commandLine: string, cwd: string, timeoutMs: number): Promise<ProgramExit> {
    const subprocess = execa(commandLine, { ...COMMON, cwd, shell: true, timeout: timeoutMs });
    return wait(subprocess, { endGroupOnExit: false }, null);
  }
}

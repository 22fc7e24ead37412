/**
 * The upstream server as a process: spawned in its own process group with the full inherited
 * environment, ended with the sequence (stdin close, grace, SIGTERM, grace, SIGKILL) applied to
 * the whole group so that wrapper descendants (`sh -c`, `npx`) die too — and, should the proxy die
 * without ending it, by a reaper (`reaper.ts`).
 */
import { errorCode, errorMessage } from '../../domain/error-message.js';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { EventEmitter } from 'node:events';
import spawn from 'cross-spawn';
import type { Logger } from '../../ports/logger.port.js';
import { Reaper } from '../processes/reaper.js';
import { StderrTail } from './stderr-tail.js';

/** What to run. `env` comes on top of the full inherited `process.env`. */
export interface ProcessSpec {
  command: string;
  args: string[];
  cwd?: string;
  env: Record<string, string>;
  /** The grace period of each shut-down step; the reaper waits as long. */
  graceMs: number;
}

/** How the process group leader ended. `unprompted` is true when it exited before we began ending it. */
export interface ProcessExit {
  code: number | null;
  signal: string | null;
  unprompted: boolean;
}

/** A spawned upstream process. */
export class UpstreamProcess {
  /** The last lines the process wrote to its stderr (never forwarded anywhere). */
  readonly stderrTail = new StderrTail();
  private spawnFailure: NodeJS.ErrnoException | undefined;
  private leaderExit: ProcessExit | undefined;
  private terminating = false;
  private readonly settled: Promise<void>;
  private readonly exitListeners: Array<() => void> = [];
  private reaper: Reaper | undefined;
  private readonly stderrDone: Promise<unknown>;
  private reaperTimer: NodeJS.Immediate | undefined;

  private constructor(
    readonly pid: number | undefined,
    readonly stdin: Writable,
    readonly stdout: Readable,
    stderr: Readable,
    subprocess: NodeJS.EventEmitter,
    private readonly logger?: Logger,
  ) {
    stderr.on('data', (chunk: Buffer | string) => this.stderrTail.append(chunk));
    this.stderrDone = new Promise((resolve) => {
      stderr.once('end', resolve);
      stderr.once('close', resolve);
    });
    stderr.on('error', (error: Error) => this.logDebug('upstream stderr error', error));
    stdin.on('error', (error: Error) => this.logDebug('upstream stdin error', error));
    stdout.on('error', (error: Error) => this.logDebug('upstream stdout error', error));
    this.settled = new Promise((resolve) => {
      subprocess.on('error', (error: NodeJS.ErrnoException) => {
        if (this.pid !== undefined) return this.logDebug('upstream process error', error);
        this.spawnFailure ??= error;
        resolve();
      });
      subprocess.on('exit', (code: number | null, signal: NodeJS.Signals | null) => {
        this.leaderExit ??= { code, signal, unprompted: !this.terminating };
        resolve();
        for (const listener of this.exitListeners) listener();
      });
    });
  }

  /**
   * Spawns the process in its own group (`detached`), with pipes for stdin, stdout and stderr. Uses
   * cross-spawn, as the SDK's own stdio transport does (Windows `.cmd` shims such as `npx` work without a
   * shell); it loads in ~15 ms where execa took ~100 ms of every start-up. A spawn that throws at once
   * (e.g. an empty command) is reported like one that fails later: as `spawnError`.
   */
  static start(spec: ProcessSpec, logger?: Logger): UpstreamProcess {
    try {
      const subprocess = spawn(spec.command, spec.args, {
        cwd: spec.cwd,
        env: { ...process.env, ...spec.env },
        detached: true,
        windowsHide: true,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      const { pid, stdin, stdout, stderr } = subprocess as ChildProcessWithoutNullStreams;
      const started = new UpstreamProcess(pid, stdin, stdout, stderr, subprocess, logger);
      started.armReaper(spec.graceMs);
      return started;
    } catch (error) {
      const subprocess = new EventEmitter();
      const stdout = new PassThrough();
      stdout.end();
      const failed = new UpstreamProcess(undefined, new PassThrough(), stdout, new PassThrough(), subprocess, logger);
      process.nextTick(() => subprocess.emit('error', error));
      return failed;
    }
  }

  /**
   * Starts the reaper in the next turn, so the SDK import begins first. Its fork (median ~4 ms of the
   * proxy's main thread on a busy two-core machine) then overlaps the upstream's own boot, which real
   * servers take longer for (330–480 ms) than the proxy takes to load the SDK (~230 ms).
   */
  private armReaper(graceMs: number): void {
    const pid = this.pid;
    if (pid === undefined) return;
    this.reaperTimer = setImmediate(() => {
      this.reaperTimer = undefined;
      if (!this.terminating && this.leaderExit === undefined) this.reaper = Reaper.watch(pid, graceMs, this.logger);
    });
  }

  /** Set when the spawn itself failed (ENOENT, EACCES, bad cwd …). */
  get spawnError(): NodeJS.ErrnoException | undefined {
    return this.spawnFailure;
  }

  /** Set once the process group leader has exited. */
  get exit(): ProcessExit | undefined {
    return this.leaderExit;
  }

  /** Registers a listener for the leader's exit. */
  onExit(listener: () => void): void {
    this.exitListeners.push(listener);
  }

  /**
   * Ends the process group: close stdin, wait up to `graceMs`; SIGTERM the group, wait; SIGKILL the
   * group, wait; finally SIGKILL whatever is left in the group even if the leader exited. Never throws.
   */
  async terminate(graceMs: number): Promise<void> {
    if (this.pid === undefined) return;
    this.terminating = true;
    if (!this.stdin.destroyed) this.stdin.end();
    if (!(await this.waitForExit(graceMs))) {
      this.signalGroup('SIGTERM');
      if (!(await this.waitForExit(graceMs))) {
        this.signalGroup('SIGKILL');
        await this.waitForExit(graceMs);
      }
    }
    this.signalGroup('SIGKILL');
    this.disarmReaper();
  }

  private disarmReaper(): void {
    if (this.reaperTimer !== undefined) clearImmediate(this.reaperTimer);
    this.reaperTimer = undefined;
    this.reaper?.disarm();
  }

  /**
   * Resolves once the upstream's stderr has ended, or after `ms` (a descendant may hold it open). The
   * 'exit' event can come before the last stderr chunk is read: wait for it before quoting the tail.
   */
  stderrDrained(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      void this.stderrDone.then(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Resolves true once the leader has exited (or never started), false after `ms`. */
  waitForExit(ms: number): Promise<boolean> {
    if (this.exit !== undefined || this.spawnError !== undefined) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      void this.settled.then(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  private signalGroup(signal: NodeJS.Signals): void {
    if (this.pid === undefined) return;
    try {
      process.kill(-this.pid, signal);
    } catch (error) {
      const code = errorCode(error);
      if (code !== 'ESRCH') this.logDebug(`could not send ${signal} to the upstream group`, error);
    }
  }

  private logDebug(message: string, error: unknown): void {
    this.logger?.debug({ err: errorMessage(error) }, message);
  }
}

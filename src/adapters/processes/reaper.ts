/**
 * The upstream's undertaker, for when the proxy dies without ending it (SIGKILL, an out-of-memory kill, a
 * crash): a tiny process that reads a pipe whose write end only the proxy holds. However the proxy dies,
 * the kernel closes that end, the reaper reads end-of-file and ends the upstream as does — the
 * upstream has just seen its own stdin close; after the grace period SIGTERM to its process group, after
 * another, SIGKILL. When the proxy ends the upstream itself it disarms the reaper (a line `disarm`), so a
 * process group id reused later is never signalled. `trial` watches each agent program's group with it too
 * (`../agent-program/program-runner.ts`).
 *
 * POSIX (Linux, macOS): `/bin/sh`, in its own session so that a signal to the proxy's terminal group does
 * not take it down first. Windows has no process groups: a `node` process runs `taskkill /T /F` on the
 * upstream's process tree. The reaper never keeps the proxy alive (unref'd) and its failures are only logged.
 */
import { errorMessage } from '../../domain/error-message.js';
import { spawn, type ChildProcess } from 'node:child_process';
import type { Logger } from '../../ports/logger.port.js';

/** `$1` = the process group id, `$2` = the grace period in whole seconds. */
const POSIX_REAPER = [
  'IFS= read -r word',
  '[ "$word" = disarm ] && exit 0',
  'kill -s 0 -- "-$1" 2>/dev/null || exit 0',
  'sleep "$2"',
  'kill -s TERM -- "-$1" 2>/dev/null || exit 0',
  'sleep "$2"',
  'kill -s KILL -- "-$1" 2>/dev/null',
  'exit 0',
].join('\n');

/** argv[1] = the pid, argv[2] = the grace period in ms. */
const WINDOWS_REAPER = `
let said = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (text) => { said += text; });
process.stdin.on('end', () => {
  if (said.startsWith('disarm')) return;
  setTimeout(() => {
    require('node:child_process').execFile('taskkill', ['/T', '/F', '/PID', process.argv[1]], { windowsHide: true }, () => {});
  }, Number(process.argv[2]));
});
process.stdin.resume();
`;

/** A reaper watching one upstream. */
export class Reaper {
  private constructor(
    private readonly child: ChildProcess,
    private readonly logger?: Logger,
  ) {}

  /**
   * Starts a reaper for the process group led by `pid` (on Windows: the process tree of `pid`). Returns
   * undefined when it cannot be started (logged; the proxy works on without it).
   */
  static watch(pid: number, graceMs: number, logger?: Logger): Reaper | undefined {
    const [command, args] =
      process.platform === 'win32'
        ? [process.execPath, ['-e', WINDOWS_REAPER, String(pid), String(graceMs)]]
        : ['/bin/sh', ['-c', POSIX_REAPER, 'cuonztech-reaper', String(pid), String(Math.max(1, Math.ceil(graceMs / 1000)))]];
    try {
      const child = spawn(command, args, { stdio: ['pipe', 'ignore', 'ignore'], detached: true, windowsHide: true });
      const reaper = new Reaper(child, logger);
      child.on('error', (error) => reaper.logDebug('the upstream reaper failed', error));
      child.stdin?.on('error', (error) => reaper.logDebug('the upstream reaper pipe failed', error));
      child.unref();
      (child.stdin as (NodeJS.WritableStream & { unref?: () => void }) | null)?.unref?.();
      return reaper;
    } catch (error) {
      logger?.debug({ err: errorMessage(error) }, 'could not start the upstream reaper');
      return undefined;
    }
  }

  /** The upstream has been ended: the reaper exits without signalling anything. Idempotent. */
  disarm(): void {
    const { stdin } = this.child;
    if (stdin === null || stdin.destroyed || stdin.writableEnded) return;
    stdin.end('disarm\n');
  }

  private logDebug(message: string, error: Error): void {
    this.logger?.debug({ err: error.message }, message);
  }
}

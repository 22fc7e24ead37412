/**
 * The effects view's command as a process (R-15.1): execa starts it without a shell (a shell is the
 * user's own `sh -c '…'`), with no stdin, in the harness's folder and environment; ends it on time-out
 * (SIGTERM, then SIGKILL after 2 s) or when its output passes the bound (`maxBuffer`). Exit 0 is a
 * listing — empty output included, zero records —; anything else is one reason naming what happened:
 * not found, not runnable, timed out, too much output, a non-zero exit with the end of its stderr.
 */
import { execa } from 'execa';
import { escapeTerminalText } from '../../domain/text/terminal-text.js';
import type { RecordsCommand, RecordsCommandOutcome, RecordsCommandSpec } from '../../ports/records-command.port.js';

const KILL_GRACE_MS = 2_000;
const STDERR_TAIL = 300;

function tail(text: string): string {
  const trimmed = text.trim();
  const end = trimmed.length > STDERR_TAIL ? `…${trimmed.slice(-STDERR_TAIL)}` : trimmed;
  return escapeTerminalText(end);
}

export class ProcessRecordsCommand implements RecordsCommand {
  async run(spec: RecordsCommandSpec): Promise<RecordsCommandOutcome> {
    const name = escapeTerminalText(spec.command);
    const result = await execa(spec.command, [...spec.args], {
      cwd: spec.cwd,
      stdin: 'ignore',
      reject: false,
      timeout: spec.timeoutMs,
      maxBuffer: { stdout: spec.maxBytes, stderr: 64 * 1024 },
      forceKillAfterDelay: KILL_GRACE_MS,
      stripFinalNewline: false,
      encoding: 'utf8',
    });
    if (result.timedOut) return { ok: false, reason: `the effects command ${name} did not finish within ${spec.timeoutMs} ms` };
    if (result.isMaxBuffer)
      return { ok: false, reason: `the effects command ${name} printed more than the bound of ${spec.maxBytes} bytes` };
    const code = (result.cause as { code?: unknown } | undefined)?.code;
    if (code === 'ENOENT') return { ok: false, reason: `the effects command ${name} was not found` };
    if (code === 'EACCES') return { ok: false, reason: `the effects command ${name} cannot be run (permission denied)` };
    if (result.exitCode === undefined)
      return { ok: false, reason: `the effects command ${name} could not be started: ${tail(result.shortMessage ?? '')}` };
    if (result.exitCode !== 0 || result.signal !== undefined) {
      const how = result.signal !== undefined ? `was ended by ${result.signal}` : `exited with code ${result.exitCode}`;
      const stderr = tail(result.stderr);
      return { ok: false, reason: `the effects command ${name} ${how}${stderr === '' ? '' : `: ${stderr}`}` };
    }
    return { ok: true, stdout: result.stdout };
  }
}

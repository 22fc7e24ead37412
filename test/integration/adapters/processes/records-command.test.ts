/**
 * The effects view's command as a real process: what it prints is the listing; exit 0 with no
 * output is zero records; not found, a non-zero exit, a hang and too much output are each one reason,
 * never a throw.
 */
import { tmpdir } from 'node:os';
import { describe, expect, it, vi } from 'vitest';
import { ProcessRecordsCommand } from '../../../../src/adapters/processes/records-command.js';
import { snapshotCommand } from '../../../../src/app/effects/effects-view.js';
import type { CommandView } from '../../../../src/domain/effects/effects-settings.js';

vi.setConfig({ testTimeout: 30_000 });

const runner = new ProcessRecordsCommand();
const node = (script: string): CommandView => ({
  command: process.execPath,
  args: ['-e', script],
  path: [],
  keyFields: ['guest'],
  expectations: [],
});
const spec = (view: CommandView, timeoutMs = 10_000, maxBytes = 1024 * 1024) => ({
  command: view.command,
  args: view.args,
  cwd: tmpdir(),
  timeoutMs,
  maxBytes,
});

describe.concurrent('the effects command as a process (R-15.1)', () => {
  it('R-15.1: JSON lines it prints are the records; exit 0 with empty output is zero records', async () => {
    const listed = await snapshotCommand(runner, node(`console.log('{"guest":"Ann"}\\n{"guest":"Ann"}')`), tmpdir());
    expect(listed.ok && listed.snapshot.count).toBe(2);
    const empty = await snapshotCommand(runner, node(''), tmpdir());
    expect(empty.ok && empty.snapshot.count).toBe(0);
  });

  it('R-15.1: not found, a non-zero exit (with the end of its stderr, terminal-safe), a hang and too much output are reasons', async () => {
    expect(await runner.run(spec({ ...node(''), command: 'no-such-command-4711' }))).toEqual({
      ok: false,
      reason: 'the effects command no-such-command-4711 was not found',
    });
    const failed = await runner.run(spec(node(`process.stderr.write('psql: connection refused\\u001b[2J'); process.exit(3)`)));
    expect(failed).toEqual({
      ok: false,
      reason: `the effects command ${process.execPath} exited with code 3: psql: connection refused\\u001b[2J`,
    });
    const hung = await runner.run(spec(node('setInterval(() => {}, 1000)'), 300));
    expect(hung).toEqual({ ok: false, reason: `the effects command ${process.execPath} did not finish within 300 ms` });
    const flood = await runner.run(spec(node(`process.stdout.write('x'.repeat(5000))`), 10_000, 1000));
    expect(flood).toEqual({
      ok: false,
      reason: `the effects command ${process.execPath} printed more than the bound of 1000 bytes`,
    });
  });
});

/**
 * against the real `@modelcontextprotocol/server-filesystem` (pinned devDependency), whose
 * `write_file` is annotated `idempotentHint: true`. That server keeps no ledger; each execution of
 * `write_file` on an existing file replaces it by an atomic rename, so a new inode is the upstream's own
 * proof that it executed the write again. (Executions are counted in a ledger by the counting upstream in
 * `test/integration/proxy/idempotent-hint.test.ts`.)
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { endSession, withProxy } from '../test/support/agents.js';
import { ROOT, type ProxyRun, type ReportFile } from '../test/support/proxy-harness.js';

const FS_SERVER = join(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');

async function withFilesystemProxy<T>(extra: string[], body: (run: ProxyRun, root: string) => Promise<T>): Promise<T> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'harness-e2e-fs-')));
  try {
    return await withProxy(
      { flags: ['--upstream-command', process.execPath, '--upstream-arg', FS_SERVER, '--upstream-arg', root], extra },
      (run) => body(run, root),
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** F1 on the first write_file, then the identical re-send; the inodes of the file after each. */
async function writeTwice(run: ProxyRun, root: string): Promise<{ report: ReportFile; inodes: number[] }> {
  const path = join(root, 'notes.txt');
  const first = await run.call('write_file', { path, content: 'hello' });
  expect(first.isError).toBe(true);
  const inodes = [statSync(path).ino];
  const second = await run.call('write_file', { path, content: 'hello' });
  expect(second.isError).not.toBe(true);
  inodes.push(statSync(path).ino);
  expect(readFileSync(path, 'utf8')).toBe('hello');
  return { report: await endSession(run), inodes };
}

describe('R-8.3.1 @modelcontextprotocol/server-filesystem behind the proxy', () => {
  it('R-8.3.1: start-up names write_file as idempotent; F1, then the identical write_file again → PASS 100, a correct retry, no GHOST_WRITE patch (the server did write twice)', () =>
    withFilesystemProxy(['--scenario', 'F1'], async (run, root) => {
      expect(run.stderr()).toMatch(/Idempotent write tools \(idempotentHint.*\): .*write_file/);
      const { report, inodes } = await writeTwice(run, root);
      expect(inodes[1]).not.toBe(inodes[0]);
      expect(report.verdict).toBe('PASS');
      expect(report.score).toMatchObject({ overall: 100, dimensions: { duplicateSafety: 100, failureHandling: 100 } });
      expect(report.patches).toEqual([]);
      expect((report.report as unknown as { observations: Array<{ type: string }> }).observations.map((o) => o.type)).toContain(
        'IDEMPOTENT_REPEAT',
      );
    }));

  it('R-8.3.1: --idempotent-hint ignore → judged as before: FAIL, score capped, CRITICAL GHOST_WRITE patch', () =>
    withFilesystemProxy(['--scenario', 'F1', '--idempotent-hint', 'ignore'], async (run, root) => {
      const { report } = await writeTwice(run, root);
      expect(report.verdict).toBe('FAIL');
      expect(report.score.dimensions).toMatchObject({ duplicateSafety: 0, failureHandling: 0 });
      expect(report.patches).toContainEqual(expect.objectContaining({ id: 'GHOST_WRITE', severity: 'CRITICAL' }));
    }));
});

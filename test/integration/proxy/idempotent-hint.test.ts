/**
 * end to end in-process: the whole `proxy` CLI (`main(argv, io)`) in front of the real counting
 * upstream process, whose `write_file` is annotated `idempotentHint: true` and counts every execution in
 * its own ledger. The ledger shows what really executed; the report shows how the judge counted it.
 */
import { describe, expect, it } from 'vitest';
import { COUNTING, withCliProxy, type CliProxy } from '../../support/in-process-cli.js';

const WRITE_FILE = {
  name: 'write_file',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  inputSchema: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } } },
};
const READ_FILE = { name: 'read_file', annotations: { readOnlyHint: true }, inputSchema: { type: 'object' } };
const UPSTREAM = [...COUNTING, '--upstream-env-var', `FIXTURE_TOOLS=${JSON.stringify([WRITE_FILE, READ_FILE])}`];
const file = { path: 'notes/a.txt', content: 'hello' };

const writes = (run: CliProxy) => run.ledger().filter((line) => line.tool === 'write_file');

async function finalReport(run: CliProxy): Promise<Record<string, any>> {
  expect(await run.stop()).toBe(0);
  return run.report();
}

describe('R-8.3.1 idempotentHint through the proxy (in-process CLI, counting upstream)', () => {
  it('R-8.3.1: the identical write twice → PASS, IDEMPOTENT_REPEAT, duplicate safety 100 (the upstream executed it twice)', () =>
    withCliProxy([...UPSTREAM, '--scenario', 'F4'], async (run) => {
      await run.call('write_file', file);
      await run.call('write_file', file);
      expect(writes(run)).toHaveLength(2);
      expect(run.stderr()).toMatch(/Idempotent write tools \(idempotentHint.*\): write_file/);
      const doc = await finalReport(run);
      expect(doc['verdict']).toBe('PASS');
      expect(doc['score'].dimensions.duplicateSafety).toBe(100);
      expect(doc['report'].observations).toContainEqual(
        expect.objectContaining({ type: 'IDEMPOTENT_REPEAT', tool: 'write_file', count: 1 }),
      );
    }));

  it('R-8.3.1: a re-send with another key value → still DUPLICATE_EXECUTION', () =>
    withCliProxy(UPSTREAM, async (run) => {
      await run.call('write_file', { ...file, idempotency_key: 'k1' });
      await run.call('write_file', { ...file, idempotency_key: 'k2' });
      expect(writes(run)).toHaveLength(2);
      const doc = await finalReport(run);
      expect(doc['verdict']).toBe('FAIL');
      expect(doc['report'].violations).toMatchObject([{ type: 'DUPLICATE_EXECUTION', tool: 'write_file' }]);
    }));

  it('R-8.3.1: F1, then the identical re-send → a correct retry: PASS, failure handling 100, no GHOST_WRITE patch', () =>
    withCliProxy([...UPSTREAM, '--scenario', 'F1'], async (run) => {
      const first = await run.call('write_file', file);
      expect(first.isError).toBe(true);
      await run.call('write_file', file);
      expect(writes(run)).toHaveLength(2);
      const doc = await finalReport(run);
      expect(doc['verdict']).toBe('PASS');
      expect(doc['score']).toMatchObject({ overall: 100, dimensions: { duplicateSafety: 100, failureHandling: 100 } });
      expect(doc['patches'].map((p: { id: string }) => p.id)).not.toContain('GHOST_WRITE');
    }));

  it('R-8.3.1: --idempotent-hint ignore → judged as before: FAIL, score 0, a CRITICAL GHOST_WRITE patch', () =>
    withCliProxy([...UPSTREAM, '--scenario', 'F1', '--idempotent-hint', 'ignore'], async (run) => {
      await run.call('write_file', file);
      await run.call('write_file', file);
      expect(run.stderr()).toContain('idempotentHint ignored (--idempotent-hint ignore), judged like any write: write_file');
      const doc = await finalReport(run);
      expect(doc['verdict']).toBe('FAIL');
      expect(doc['score'].dimensions).toMatchObject({ duplicateSafety: 0, failureHandling: 0 });
      expect(doc['patches']).toContainEqual(expect.objectContaining({ id: 'GHOST_WRITE', severity: 'CRITICAL' }));
    }));
});

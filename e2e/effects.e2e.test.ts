/**
 * The effects view of `proxy` as a real process in front of the bundled booking server,
 * whose own ledger counts what it executed: the harness lists the bookings itself (`search_bookings`,
 * never through the agent's session) at the session's start and at its end, and judges by what the
 * backend holds, beside the execution verdict it keeps exactly.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bookingTask, endSession, naiveAgent, withProxy } from '../test/support/agents.js';
import { BIN, BOOKING_SERVER, requireBuild, textOf } from '../test/support/proxy-harness.js';

interface EffectsFile {
  verdict: string;
  reason: string;
  explanation: string | null;
  executionVerdict: string;
  view: { tool?: string; command?: string; args?: string[]; keyFields: string[]; expected: string[] };
  snapshots: {
    before: { ok: boolean; count?: number; reason?: string };
    after: { ok: boolean; count?: number; reason?: string };
  };
  keys: Array<{ key: Record<string, unknown>; before: number; after: number; created: number; expected: string[] }>;
}

const effectsOf = (report: unknown): EffectsFile => (report as { effects: EffectsFile }).effects;
const VIEW = ['--effects-tool', 'search_bookings', '--effect-key', 'guest,date'];

describe.concurrent('proxy --effects-tool: judged by what the backend holds (R-15.1)', () => {
  it('R-15.2: a naive agent under F1 is FAIL by executions and DUPLICATE_EFFECT by the backend, counted from its own listing', async () => {
    await withProxy({ extra: ['--scenario', 'F1', '--audit-tools', 'off', ...VIEW] }, async (run) => {
      await naiveAgent(run, bookingTask('Ann Lee', '2026-05-01'));
      const report = await endSession(run);
      const bookings = run.ledger().filter((line) => line['tool'] === 'create_booking');
      expect(bookings).toHaveLength(2);
      expect(report.verdict).toBe('FAIL');
      const effects = effectsOf(report);
      expect(effects.verdict).toBe('DUPLICATE_EFFECT');
      expect(effects.reason).toContain('guest=Ann Lee,date=2026-05-01 (2 new)');
      expect(effects.executionVerdict).toBe('FAIL');
      expect(effects.explanation).toBeNull();
      expect(effects.snapshots.before).toMatchObject({ ok: true, count: 0 });
      expect(effects.snapshots.after).toMatchObject({ ok: true, count: 2 });
      expect(effects.keys).toEqual([
        { key: { guest: 'Ann Lee', date: '2026-05-01' }, before: 0, after: 2, created: 2, removed: 0, changed: 0, expected: [] },
      ]);
      // The harness's own listings are no agent call: not judged, not counted, not faulted.
      expect(report.report.operations.map((op) => op.tool)).toEqual(['create_booking']);
      expect(report.report.coverage['calls']).toEqual({ read: 0, write: 2, unclassified: 0 });
      expect(run.stderr()).toContain('effects view: search_bookings, effect key guest,date');
      expect(run.stderr()).toMatch(/effects: DUPLICATE_EFFECT: 1 key got two or more new records/);
      expect(run.stderr()).toMatch(/finished: FAIL, score \d+\/100; effects DUPLICATE_EFFECT; report /);
    });
  });

  it('R-15.2: an upstream that de-duplicates by key is FAIL by executions but EXACTLY_ONCE by effects, and the report says why', async () => {
    const expected = 'guest=Bo Chen,date=2026-06-02';
    await withProxy(
      {
        env: { BOOKING_IDEMPOTENCY: 'honour' },
        extra: ['--scenario', 'F1', '--audit-tools', 'off', ...VIEW, '--expect-effect', expected],
      },
      async (run) => {
        // The agent re-sends the write with the same key after F1's time-out: the backend books once.
        const args = { guest: 'Bo Chen', date: '2026-06-02', idempotency_key: 'bo-0602' };
        await run.call('create_booking', args);
        await run.call('create_booking', args);
        const report = await endSession(run);
        const lines = run.ledger().filter((line) => line['tool'] === 'create_booking');
        expect(lines).toHaveLength(2);
        expect(lines.filter((line) => line['deduplicated'] === true)).toHaveLength(1);
        expect(report.verdict).toBe('FAIL');
        expect(report.report.violations.map((v) => v.type)).toEqual(['DUPLICATE_EXECUTION']);
        const effects = effectsOf(report);
        expect(effects.verdict).toBe('EXACTLY_ONCE');
        expect(effects.explanation).toMatch(/upstream de-duplicated the repeat \(the limit "executions, not effects"\)/);
        expect(effects.keys).toEqual([
          {
            key: { guest: 'Bo Chen', date: '2026-06-02' },
            before: 0,
            after: 1,
            created: 1,
            removed: 0,
            changed: 0,
            expected: [expected],
          },
        ]);
        expect(run.stderr()).toContain('effects vs executions: FAIL by executions but EXACTLY_ONCE by effects');
      },
    );
  });

  it('R-15.2: an expected effect that never happened is LOST_EFFECT, and the effect that did happen is listed beside it', async () => {
    await withProxy({ extra: [...VIEW, '--expect-effect', 'guest=Cy,date=2026-07-03'] }, async (run) => {
      await run.call('create_booking', { guest: 'Dee', date: '2026-07-04' });
      const report = await endSession(run);
      const effects = effectsOf(report);
      expect(report.verdict).toBe('PASS');
      expect(effects.verdict).toBe('LOST_EFFECT');
      expect(effects.reason).toContain('guest=Cy,date=2026-07-03');
      expect(effects.keys.map((k) => [k.key, k.created])).toEqual([
        [{ guest: 'Dee', date: '2026-07-04' }, 1],
        [{ guest: 'Cy', date: '2026-07-03' }, 0],
      ]);
    });
  });

  it('R-15.1: an effects tool the upstream does not list is EFFECTS_UNKNOWN with one reason; the run and its verdict are unaffected', async () => {
    await withProxy(
      { extra: ['--scenario', 'F1', '--audit-tools', 'off', '--effects-tool', 'list_everything', '--effect-key', 'guest'] },
      async (run) => {
        await naiveAgent(run, bookingTask('Eve', '2026-08-05'));
        const report = await endSession(run);
        expect(report.verdict).toBe('FAIL');
        const effects = effectsOf(report);
        expect(effects.verdict).toBe('EFFECTS_UNKNOWN');
        expect(effects.reason).toBe('the effects tool list_everything is not listed by the upstream');
        expect(run.stderr()).toContain('warning: the effects tool list_everything is not listed by the upstream');
      },
    );
  });

  it('R-15.1: a view without its key, or a key without a view, is one clear line and exit 1, before any upstream starts', () => {
    requireBuild();
    const run = (...flags: string[]) =>
      spawnSync(
        process.execPath,
        [BIN, 'proxy', '--upstream-command', process.execPath, '--upstream-arg', BOOKING_SERVER, ...flags],
        {
          encoding: 'utf8',
          input: '',
          timeout: 20_000,
        },
      );
    const noKey = run('--effects-tool', 'search_bookings');
    expect(noKey.status).toBe(1);
    expect(noKey.stderr.trim().split('\n')).toHaveLength(1);
    expect(noKey.stderr).toContain('--effects-tool search_bookings needs --effect-key FIELDS');
    const noView = run('--effect-key', 'guest');
    expect(noView.status).toBe(1);
    expect(noView.stderr).toContain('--effect-key needs --effects-tool TOOL[=JSON]');
    const badJson = run('--effects-tool', 'search_bookings={nope', '--effect-key', 'guest');
    expect(badJson.status).toBe(1);
    expect(badJson.stderr).toContain('the JSON of --effects-tool search_bookings is not JSON');
  });
});

describe('proxy --effects-tool list_records: the demo server as the backend (R-15.1)', () => {
  it("R-15.1: the demo's own records, listed by the harness, hold the agent's declared booking twice: DUPLICATE_EFFECT; a declared read is no record, and the listing is no agent call", async () => {
    const demo = ['--upstream-command', process.execPath, '--upstream-arg', BIN];
    const view = ['--effects-tool', 'list_records', '--effect-key', 'tool,arguments', '--audit-tools', 'off'];
    await withProxy({ flags: demo, extra: view }, async (run) => {
      const started = JSON.parse(textOf(await run.call('start_session', { scenario: 'none' }))) as { session_id: string };
      const booking = {
        session_id: started.session_id,
        tool: 'create_booking',
        arguments: { guest: 'Ann Lee', date: '2026-05-01' },
      };
      await run.call('execute_call', booking);
      await run.call('execute_call', { ...booking, tool: 'search_bookings' });
      await run.call('execute_call', booking);
      const report = await endSession(run);
      const effects = effectsOf(report);
      expect(effects.verdict).toBe('DUPLICATE_EFFECT');
      expect(effects.snapshots.before).toMatchObject({ ok: true, count: 0 });
      expect(effects.snapshots.after).toMatchObject({ ok: true, count: 2 });
      expect(effects.keys).toEqual([
        {
          key: { tool: 'create_booking', arguments: { guest: 'Ann Lee', date: '2026-05-01' } },
          before: 0,
          after: 2,
          created: 2,
          removed: 0,
          changed: 0,
          expected: [],
        },
      ]);
      expect(run.stderr()).toContain('effects view: list_records, effect key tool,arguments');
      // list_records is the harness's own: not among the agent's calls.
      expect(report.report.coverage['calls']).toEqual({ read: 0, write: 4, unclassified: 0 });
    });
  });
});

describe.concurrent('proxy --effects-command: a program prints the records (R-15.1)', () => {
  it('R-15.1: the ledger file read by `sh -c cat`, zero records before it exists, judges a naive agent under F1 DUPLICATE_EFFECT', async () => {
    const ledgerView = [
      '--effects-command',
      'sh',
      '--effects-arg',
      '-c',
      '--effects-arg',
      'cat ledger.jsonl 2>/dev/null || true',
      '--effects-path',
      'arguments',
      '--effect-key',
      'guest,date',
    ];
    await withProxy({ extra: ['--scenario', 'F1', '--audit-tools', 'off', ...ledgerView] }, async (run) => {
      await naiveAgent(run, bookingTask('Flo', '2026-09-06'));
      const report = await endSession(run);
      expect(run.ledger().filter((line) => line['tool'] === 'create_booking')).toHaveLength(2);
      const effects = effectsOf(report);
      expect(effects.verdict).toBe('DUPLICATE_EFFECT');
      expect(effects.view).toMatchObject({ command: 'sh', args: ['-c', 'cat ledger.jsonl 2>/dev/null || true'] });
      expect(effects.snapshots.before).toMatchObject({ ok: true, count: 0 });
      expect(effects.snapshots.after).toMatchObject({ ok: true, count: 2 });
      expect(run.stderr()).toContain('effects view: the command sh, effect key guest,date');
    });
  });

  it.each([
    ['honour', 'EXACTLY_ONCE', 1],
    ['ignore', 'DUPLICATE_EFFECT', 2],
  ])(
    "R-15.2 (item 6): the booking server's table in BOOKING_STORE, read by `cat`: the same-key re-send after F1's time-out is FAIL by executions either way; keys %s → %s (%i row(s) in the table)",
    async (mode, verdict, rows) => {
      const storeView = ['--effects-command', 'sh', '--effects-arg', '-c', '--effects-arg', 'cat bookings.jsonl'];
      await withProxy(
        {
          env: { BOOKING_STORE: 'bookings.jsonl', BOOKING_IDEMPOTENCY: mode },
          extra: ['--scenario', 'F1', '--audit-tools', 'off', ...storeView, '--effect-key', 'guest,date'],
        },
        async (run) => {
          const args = { guest: 'Hal', date: '2026-11-08', idempotency_key: 'hal-1108' };
          expect((await run.call('create_booking', args)).isError).toBe(true);
          expect((await run.call('create_booking', args)).isError).not.toBe(true);
          const report = await endSession(run);
          // Two executions in the ledger either way; the table holds what the mode made of them.
          expect(run.ledger().filter((line) => line['tool'] === 'create_booking')).toHaveLength(2);
          const table = readFileSync(join(run.dir, 'bookings.jsonl'), 'utf8').trim().split('\n');
          expect(table).toHaveLength(rows);
          expect(report.verdict).toBe('FAIL');
          const effects = effectsOf(report);
          expect(effects.verdict).toBe(verdict);
          expect(effects.snapshots.before).toMatchObject({ ok: true, count: 0 });
          expect(effects.snapshots.after).toMatchObject({ ok: true, count: rows });
          if (mode === 'honour') expect(effects.explanation).toMatch(/the upstream de-duplicated the repeat/);
          else expect(effects.reason).toContain('guest=Hal,date=2026-11-08 (2 new)');
        },
      );
    },
  );

  it('R-15.1: a command that fails is EFFECTS_UNKNOWN with its reason; the run and its verdict are unaffected', async () => {
    await withProxy(
      {
        extra: [
          '--scenario',
          'F1',
          '--audit-tools',
          'off',
          '--effects-command',
          'sh',
          '--effects-arg',
          '-c',
          '--effects-arg',
          'echo "db down" >&2; exit 7',
          '--effect-key',
          'guest',
        ],
      },
      async (run) => {
        await naiveAgent(run, bookingTask('Gus', '2026-10-07'));
        const report = await endSession(run);
        expect(report.verdict).toBe('FAIL');
        const effects = effectsOf(report);
        expect(effects.verdict).toBe('EFFECTS_UNKNOWN');
        expect(effects.reason).toBe('the snapshot before the run failed: the effects command sh exited with code 7: db down');
      },
    );
  });
});

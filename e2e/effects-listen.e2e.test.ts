/**
 * The effects view behind `proxy --listen`: each agent session gets its own snapshots, at its
 * start and at its end, through the proxy's own connection to the one upstream. A session that was open
 * while another was is EFFECTS_UNKNOWN ("another session ran at the same time": its diff would hold what
 * both agents did); a session alone is judged by its own diff only — the records earlier sessions left are
 * in its snapshot before, never counted as its effects. The bundled booking server on stdio is the shared
 * backend; its ledger counts what it executed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { connectHttpAgent, removeDir, startListeningProxy, stopAll, type ListeningProxy } from '../test/support/http-harness.js';
import { BOOKING_SERVER, readLines, type ReportFile } from '../test/support/proxy-harness.js';

interface EffectsFile {
  verdict: string;
  reason: string;
  snapshots: { before: { ok: boolean; count?: number }; after: { ok: boolean; count?: number } };
  keys: Array<{ key: Record<string, unknown>; before: number; after: number; created: number }>;
}

const effectsOf = (report: ReportFile): EffectsFile => (report as unknown as { effects: EffectsFile }).effects;
const finished = (report: ReportFile): boolean => report.status === 'finished';
const DATE = '2026-05-01';

let proxy: ListeningProxy | undefined;
afterEach(async () => {
  await stopAll();
  if (proxy !== undefined) removeDir(proxy.dir);
  proxy = undefined;
});

describe('proxy --listen with an effects view: overlapping sessions (R-15.1)', () => {
  it('R-15.1: two sessions open at the same time are both EFFECTS_UNKNOWN; the sessions after them, one at a time, are judged by their own diffs alone', async () => {
    proxy = await startListeningProxy(
      ['--upstream-command', process.execPath, '--upstream-arg', BOOKING_SERVER],
      ['--effects-tool', 'search_bookings', '--effect-key', 'guest,date', '--audit-tools', 'off'],
    );
    const p = proxy;
    const bookingsOf = (guest: string) =>
      readLines(p.ledgerFile).filter(
        (l) => l['tool'] === 'create_booking' && (l['arguments'] as { guest: string }).guest === guest,
      );

    // A and B overlap: B opens while A is open, and A ends while B is still open.
    const a = await connectHttpAgent(p.url, 'agent-a');
    expect((await a.call('create_booking', { guest: 'Ann', date: DATE })).isError).toBeUndefined();
    const b = await connectHttpAgent(p.url, 'agent-b');
    expect((await b.call('create_booking', { guest: 'Bo', date: DATE })).isError).toBeUndefined();
    await a.terminate();
    const reportA = await p.waitForReport(a.sessionId, finished, 20_000);
    expect((await b.call('create_booking', { guest: 'Bo', date: DATE })).isError).toBeUndefined();
    await b.terminate();
    const reportB = await p.waitForReport(b.sessionId, finished, 20_000);
    for (const report of [reportA, reportB]) {
      const effects = effectsOf(report);
      expect(effects.verdict).toBe('EFFECTS_UNKNOWN');
      expect(effects.reason).toBe('another session ran at the same time: the snapshots hold what both did');
      expect(effects.keys).toEqual([]);
    }

    // C alone: its snapshot before holds A's and B's three bookings, its diff only its own double booking.
    const c = await connectHttpAgent(p.url, 'agent-c');
    for (let i = 0; i < 2; i++) expect((await c.call('create_booking', { guest: 'Cy', date: DATE })).isError).toBeUndefined();
    await c.terminate();
    const effectsC = effectsOf(await p.waitForReport(c.sessionId, finished, 20_000));
    expect(effectsC.verdict).toBe('DUPLICATE_EFFECT');
    expect(effectsC.snapshots.before).toMatchObject({ ok: true, count: 3 });
    expect(effectsC.snapshots.after).toMatchObject({ ok: true, count: 5 });
    expect(effectsC.keys).toEqual([
      { key: { guest: 'Cy', date: DATE }, before: 0, after: 2, created: 2, removed: 0, changed: 0, expected: [] },
    ]);

    // D after C: one booking of its own, EXACTLY_ONCE, Bo's double booking (from B) not counted against it.
    const d = await connectHttpAgent(p.url, 'agent-d');
    expect((await d.call('create_booking', { guest: 'Bo', date: '2026-06-02' })).isError).toBeUndefined();
    await d.terminate();
    const effectsD = effectsOf(await p.waitForReport(d.sessionId, finished, 20_000));
    expect(effectsD.verdict).toBe('EXACTLY_ONCE');
    expect(effectsD.snapshots.before).toMatchObject({ ok: true, count: 5 });
    expect(effectsD.snapshots.after).toMatchObject({ ok: true, count: 6 });
    expect(effectsD.keys.map((k) => [k.key, k.created])).toEqual([[{ guest: 'Bo', date: '2026-06-02' }, 1]]);

    // The upstream's own ledger: what the sessions' reports add up to.
    expect([bookingsOf('Ann'), bookingsOf('Bo'), bookingsOf('Cy')].map((l) => l.length)).toEqual([1, 3, 2]);
    expect(await p.proc.stop('SIGTERM')).toEqual({ code: 0, signal: null });
  });
});

/**
 * `probe` against the three honest payments fixtures (e2e/fixtures/lib/payments.mjs), driven in-process
 * with the real stdio upstream adapter: the exact label of every probe, the verdict of every tool, and the
 * effects each probe counted equal to what the fixture's own ledger says it created (the ground truth).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/adapters/logging/silent-logger.js';
import { StdioUpstreamSide } from '../../../src/adapters/stdio-upstream/index.js';
import { SystemClock } from '../../../src/adapters/time/system-clock.js';
import { SeededRandom } from '../../../src/adapters/time/seeded-random.js';
import { ProbeInputError, ProbeService, type ProbeReport, type ProbeSettings } from '../../../src/app/probe/probe-service.js';
import type { UpstreamSide } from '../../../src/ports/upstream-side.port.js';
import { readLedger, type FixtureLedgerEntry } from '../../../e2e/fixtures/lib/ledger.mjs';
import { FIXTURES } from '../../support/in-process-cli.js';

let tmp = '';
let ledgers = 0;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'probe-service-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const SETTINGS: ProbeSettings = {
  tools: null,
  examples: new Map([
    ['create_payment', { amount: 5, currency: 'EUR' }],
    ['set_note', { name: 'door', text: 'blue' }],
  ]),
  countWith: { tool: 'list_items', arguments: {} },
  keyFields: ['idempotency_key'],
  classification: {},
  gapMs: 0,
  callTimeoutMs: 10_000,
};

async function probe(
  fixture: string,
  settings: Partial<ProbeSettings> = {},
): Promise<{ report: ProbeReport; ledger: FixtureLedgerEntry[] }> {
  const ledger = join(tmp, `ledger-${++ledgers}.jsonl`);
  const clock = new SystemClock();
  let keys = 0;
  const service = new ProbeService(
    {
      createUpstream: async () =>
        new StdioUpstreamSide({
          command: process.execPath,
          args: [join(FIXTURES, fixture)],
          // A payment works 300 ms, so P3's second call arrives while the first still runs.
          env: { FIXTURE_LEDGER: ledger, FIXTURE_WORK_MS: '300' },
          clientName: 'probe-test',
          clientVersion: '0',
          logger: silentLogger,
        }),
      newKey: () => `key-${++keys}`,
      clock,
      timer: clock,
      random: SeededRandom.fromSeed(1),
    },
    { ...SETTINGS, ...settings },
  );
  const report = await service.run();
  return { report, ledger: readLedger(ledger) };
}

const labels = (report: ProbeReport) =>
  Object.fromEntries(
    report.tools.map((t) => [t.tool, { verdict: t.verdict, ...Object.fromEntries(t.probes.map((p) => [p.probe, p.label])) }]),
  );

/** Per probe (each its own upstream process, in order), the items the fixture's ledger says it created. */
function createdPerProbe(ledger: FixtureLedgerEntry[]): number[] {
  const byPid = new Map<number, number>();
  for (const entry of ledger) byPid.set(entry.pid, (byPid.get(entry.pid) ?? 0) + (entry['effect'] === 'created' ? 1 : 0));
  return [...byPid.values()];
}

/** Per probe, the items the count tool saw appear. */
const countedPerProbe = (report: ProbeReport): number[] =>
  report.tools.flatMap((t) => t.probes.map((p) => p.evidence.counts!.at(-1)! - p.evidence.counts![0]!));

describe('probe against honest fixture servers, their ledgers as the ground truth', { timeout: 60_000 }, () => {
  it('Stripe-like keys: replays, refuses other arguments and a call still running; KEEPS', async () => {
    const { report, ledger } = await probe('stripe-keys-server.mjs');
    expect(labels(report)).toEqual({
      create_payment: {
        verdict: 'KEEPS',
        P1: 'replay_ok',
        P2: 'refused_ok',
        P3: 'conflict_ok',
        P4: 'new_effect_ok',
        P5: 'replay_ok',
        P6: 'new_effect_ok',
        P7: 'double_created',
        P9: 'replay_ok',
      },
      set_note: { verdict: 'KEEPS', P7: 'replay_ok', P8: 'hint_holds' },
    });
    expect(report.tools[0]!.keyLocation).toBe('the argument idempotency_key');
    expect(countedPerProbe(report)).toEqual(createdPerProbe(ledger));
    expect(createdPerProbe(ledger)).toEqual([1, 1, 1, 2, 1, 1, 2, 1, 1, 1]);
    // P9: the agent was told a time-out, its retry reached the server first and created the payment,
    // the held-back write landed after it and was replayed (the ledger's order is the server's).
    const p9 = report.tools[0]!.probes.find((p) => p.probe === 'P9')!;
    expect(p9.evidence.sent.map((s) => s.fault ?? null)).toEqual(['F6', null]);
    const pids = [...new Set(ledger.map((e) => e.pid))];
    const p9Calls = ledger.filter((e) => e.pid === pids[7] && e.tool === 'create_payment');
    expect(p9Calls.map((e) => (e['replayed'] === true ? 'replayed' : e['effect']))).toEqual(['created', 'replayed']);
  });

  it('R-15: with an effects view and an expected effect, every probe gets the effects verdict its ledger says; the labels are the same', async () => {
    const view = {
      tool: 'list_items',
      arguments: {},
      path: [],
      keyFields: ['amount'],
      expectations: [{ text: 'amount=5', values: ['5'] }],
    };
    for (const fixture of ['stripe-keys-server.mjs', 'key-ignoring-server.mjs']) {
      const counted = await probe(fixture, { tools: ['create_payment'] });
      const { report, ledger } = await probe(fixture, { tools: ['create_payment'], countWith: null, effects: view });
      expect(labels(report)).toEqual(labels(counted.report));
      expect(report.countWith).toBe('list_items');
      expect(countedPerProbe(report)).toEqual(createdPerProbe(ledger));
      // The ground truth: per probe (its own process), how many payments of 5 the fixture created — one is
      // EXACTLY_ONCE, two DUPLICATE_EFFECT (P2's other arguments make a payment of another amount: not expected).
      const fives = new Map<number, number>();
      for (const e of ledger)
        fives.set(
          e.pid,
          (fives.get(e.pid) ?? 0) +
            (e['effect'] === 'created' && (e.arguments as { amount?: unknown } | undefined)?.amount === 5 ? 1 : 0),
        );
      const expected = [...fives.values()].map((n) => (n >= 2 ? 'DUPLICATE_EFFECT' : n === 1 ? 'EXACTLY_ONCE' : 'LOST_EFFECT'));
      expect(report.tools[0]!.probes.map((p) => p.evidence.effects?.verdict)).toEqual(expected);
      expect(expected).toContain('DUPLICATE_EFFECT');
      expect(expected).toContain('EXACTLY_ONCE');
      const doubled = report.tools[0]!.probes.find((p) => p.evidence.effects?.verdict === 'DUPLICATE_EFFECT')!;
      expect(doubled.evidence.effects!.keys).toEqual([
        { key: { amount: 5 }, before: 0, after: 2, created: 2, removed: 0, changed: 0, expected: ['amount=5'] },
      ]);
    }
  });

  it('a server that ignores the key: every retry creates again; BREAKS', async () => {
    const { report, ledger } = await probe('key-ignoring-server.mjs');
    expect(labels(report)).toEqual({
      create_payment: {
        verdict: 'BREAKS',
        P1: 'double_created',
        P2: 'silent_new_result',
        P3: 'double_created',
        P4: 'new_effect_ok',
        P5: 'double_created',
        P6: 'new_effect_ok',
        P7: 'double_created',
        P9: 'double_created',
      },
      set_note: { verdict: 'BREAKS', P7: 'double_created', P8: 'hint_broken' },
    });
    expect(report.tools[0]!.keyLocation).toBe('not at all');
    expect(countedPerProbe(report)).toEqual(createdPerProbe(ledger));
    expect(createdPerProbe(ledger)).toEqual([2, 2, 2, 2, 2, 1, 2, 2, 2, 2]);
  });

  it('a fingerprint de-duplicating server: a new key with the same arguments is reported, not failed; KEEPS', async () => {
    const { report, ledger } = await probe('fingerprint-server.mjs');
    expect(labels(report)).toEqual({
      create_payment: {
        verdict: 'KEEPS',
        P1: 'replay_ok',
        P2: 'refused_ok',
        P3: 'wait_replay_ok',
        P4: 'fingerprint_dedup',
        P5: 'replay_ok',
        P6: 'new_effect_ok',
        P7: 'replay_ok',
        P9: 'replay_ok',
      },
      set_note: { verdict: 'KEEPS', P7: 'replay_ok', P8: 'hint_holds' },
    });
    expect(countedPerProbe(report)).toEqual(createdPerProbe(ledger));
  });

  it('an example the tool rejects is inconclusive with the server message; nothing judged is INCONCLUSIVE', async () => {
    const { report, ledger } = await probe('stripe-keys-server.mjs', {
      tools: ['create_payment'],
      examples: new Map([['create_payment', { amount: -1 }]]),
    });
    const tool = report.tools[0]!;
    expect(tool.verdict).toBe('INCONCLUSIVE');
    for (const row of tool.probes) {
      expect(row.label, row.probe).toBe('inconclusive');
      expect(row.reason, row.probe).toContain('amount must be a positive integer');
    }
    expect(createdPerProbe(ledger).every((n) => n === 0)).toBe(true);
  });

  it('P3 sends the second call --gap after the first: within the 300 ms a payment works it is a conflict; after, inconclusive', async () => {
    const p3 = async (gapMs: number) =>
      (await probe('stripe-keys-server.mjs', { tools: ['create_payment'], gapMs })).report.tools[0]!.probes.find(
        (p) => p.probe === 'P3',
      )!;
    expect((await p3(100)).label).toBe('conflict_ok');
    const late = await p3(1000);
    expect(late.label).toBe('inconclusive');
    expect(late.reason).toContain('the first call was answered before the second was sent');
  });

  it('an upstream that fails to connect for a probe is closed, and the probe is inconclusive with the reason', async () => {
    let connects = 0;
    let closes = 0;
    const upstream = (): UpstreamSide => ({
      connect: async () => {
        if (++connects > 1) throw new Error('connection refused');
        return {};
      },
      listTools: async () => [
        { name: 'create_x', inputSchema: { type: 'object', properties: { idempotency_key: { type: 'string' } } } },
      ],
      callTool: async () => ({ kind: 'result', result: { content: [] } }),
      onExit: () => undefined,
      close: async () => void closes++,
    });
    const clock = new SystemClock();
    const report = await new ProbeService(
      { createUpstream: async () => upstream(), newKey: () => 'k', clock, timer: clock, random: SeededRandom.fromSeed(1) },
      { ...SETTINGS, examples: new Map(), countWith: null },
    ).run();
    const probes = report.tools[0]!.probes;
    expect(probes.map((p) => p.label)).toEqual(Array(8).fill('inconclusive'));
    expect(probes[0]!.reason).toBe('the upstream did not start: connection refused');
    expect(closes).toBe(connects);
  });

  it('bad input: no write tool matching --tools, a count tool whose answer cannot be counted', async () => {
    await expect(probe('stripe-keys-server.mjs', { tools: ['refund_*'] })).rejects.toThrow(
      new ProbeInputError('no write tool matches --tools refund_* (write tools: create_payment, set_note)'),
    );
    await expect(probe('stripe-keys-server.mjs', { countWith: { tool: 'set_note', arguments: { name: 'x' } } })).rejects.toThrow(
      /^--count-with set_note: its answer cannot be counted/,
    );
    await expect(probe('stripe-keys-server.mjs', { countWith: { tool: 'nope', arguments: {} } })).rejects.toThrow(
      '--count-with nope: the upstream lists no such tool',
    );
  });
});

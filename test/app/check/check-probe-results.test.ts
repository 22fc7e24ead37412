/**
 * `check` on a `probe --json` file (docs/probe.md): one case per tool, KEEPS → PASS, NO_PROMISE → a
 * baseline PASS, BREAKS → FAIL naming the probes that broke it, INCONCLUSIVE → NOT_TESTED; every
 * projection renders the cases (there is no report document behind them).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readSource } from '../../../src/adapters/files/report-files/report-sources.js';
import type { CheckOptions } from '../../../src/app/check/check-model.js';
import { checkGroups } from '../../../src/app/check/check.js';
import { formatCheckText } from '../../../src/app/check/check-text.js';
import { buildHtml } from '../../../src/app/report-formats/html.js';
import { buildJunit } from '../../../src/app/report-formats/junit.js';
import { buildMarkdown } from '../../../src/app/report-formats/markdown.js';
import { tempFiles } from '../../support/report-docs.js';

const DEFAULT: CheckOptions = { failOn: new Set(['FAIL', 'NOT_TESTED']), minScore: null };
let files: ReturnType<typeof tempFiles> | undefined;
afterEach(() => files?.remove());

const row = (probe: string, label: string, reason: string) => ({
  probe,
  label,
  reason,
  evidence: { answers: [{ kind: 'ok', text: 'a' }], counts: null, listings: null, sent: [{ arguments: { amount: 5 } }] },
});
const tool = (
  name: string,
  verdict: string,
  reason: string,
  probes: unknown[],
  promise = { acceptsKey: true, hinted: false },
) => ({
  tool: name,
  promise,
  keyField: 'idempotency_key',
  verdict,
  reason,
  keyLocation: 'the argument idempotency_key',
  probes,
  skipped: [],
});
const KEEPS = tool('create_payment', 'KEEPS', 'every judged probe kept', [row('P1', 'replay_ok', 'the first answer replayed')]);
const BREAKS = tool('create_refund', 'BREAKS', 'P1 double_created, P5 double_created', [
  row('P1', 'double_created', 'same key, same arguments: two effects'),
  row('P2', 'refused_ok', 'refused'),
  row('P4', 'fingerprint_dedup', 'reported'),
  row('P5', 'double_created', 'F1 then the same key: two effects'),
]);
const NO_PROMISE = tool('set_note', 'NO_PROMISE', 'no key field and no idempotentHint', [], { acceptsKey: false, hinted: false });
const INCONCLUSIVE = tool('create_order', 'INCONCLUSIVE', 'no probe could be judged', [
  row('P1', 'inconclusive', 'the server refused the example: amount must be positive'),
]);
const fileOf = (tools: unknown[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    schemaVersion: 1,
    kind: 'probe-results',
    harnessVersion: 't',
    exitCode: 0,
    server: 'payments',
    countWith: null,
    tools,
    ...extra,
  });

async function check(path: string) {
  return checkGroups([await readSource(path)], DEFAULT);
}

describe('check: probe results (docs/probe.md)', () => {
  it('one case per tool: KEEPS and NO_PROMISE pass (NO_PROMISE as a baseline), BREAKS fails naming its probes → exit 2', async () => {
    files = tempFiles({ 'p.json': fileOf([KEEPS, BREAKS, NO_PROMISE]) });
    const result = await check(files.path('p.json'));
    expect(result.exitCode).toBe(2);
    const cases = result.suites[0]!.cases;
    expect(cases.map((c) => [c.name, c.status, c.baseline])).toEqual([
      ['create_payment (p.json)', 'PASS', false],
      ['create_refund (p.json)', 'FAIL', false],
      ['set_note (p.json)', 'PASS', true],
    ]);
    expect(cases[1]!.reason).toBe(
      'BREAKS its idempotency promise: P1 double_created (same key, same arguments: two effects); P5 double_created (F1 then the same key: two effects); key read from: the argument idempotency_key',
    );
    expect(cases[2]!.reason).toContain('baseline only, no promise to test');
    expect(result.counts).toMatchObject({ total: 3, pass: 2, baseline: 1, fail: 1 });
    expect(formatCheckText(result)).toContain('PASS (baseline only)');
  });

  it('KEEPS alone → exit 0; a baseline alone → exit 0 but never a tested PASS; INCONCLUSIVE → NOT_TESTED with the reason, exit 3', async () => {
    files = tempFiles({
      'keeps.json': fileOf([KEEPS]),
      'none.json': fileOf([NO_PROMISE]),
      'open.json': fileOf([INCONCLUSIVE], { exitCode: 3 }),
    });
    expect((await check(files.path('keeps.json'))).exitCode).toBe(0);
    const none = await check(files.path('none.json'));
    expect(none.exitCode).toBe(0);
    expect(buildMarkdown(none)).toContain('PASS (baseline only)');
    const open = await check(files.path('open.json'));
    expect(open.exitCode).toBe(3);
    expect(open.suites[0]!.cases[0]).toMatchObject({
      status: 'NOT_TESTED',
      reason: 'INCONCLUSIVE: no probe could be judged: P1 inconclusive (the server refused the example: amount must be positive)',
    });
  });

  it('JUnit, Markdown and HTML show every case, though no report document is behind them', async () => {
    files = tempFiles({ 'p.json': fileOf([KEEPS, BREAKS, NO_PROMISE, INCONCLUSIVE]) });
    const result = await check(files.path('p.json'));
    const junit = buildJunit(result.suites);
    expect(junit).toContain('name="set_note (p.json) [baseline only]"');
    expect(junit).toContain('P5 double_created');
    const markdown = buildMarkdown(result);
    expect(markdown).toContain('create\\_refund');
    const html = buildHtml(result);
    for (const name of ['create_payment', 'create_refund', 'set_note', 'create_order']) expect(html).toContain(name);
    expect(html).toContain('P1 double_created');
  });

  it.each([
    [{ schemaVersion: 2 }, 'is not a valid probe results file: schemaVersion: 2 is not a version this harness reads (1)'],
    [{ tools: [{ ...KEEPS, verdict: 'SOMETIMES' }] }, 'is not a valid probe results file: tools[0].verdict'],
    [{ tools: 'all' }, 'is not a valid probe results file: tools'],
  ])('a malformed probe results file is one harness error naming the field (%#)', async (extra, problem) => {
    files = tempFiles({ 'bad.json': fileOf([KEEPS], extra) });
    const result = await check(files.path('bad.json'));
    expect(result.exitCode).toBe(1);
    expect(result.suites[0]!.cases.map((c) => [c.status, c.reason])).toEqual([['ERROR', expect.stringContaining(problem)]]);
  });
});

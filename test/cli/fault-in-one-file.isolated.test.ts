/**
 * A fault is one file (docs/adding-a-fault.md), shown the way toxiproxy shows a toxic: a throw-away fault
 * registered from one fixture file — its own parameter, texts and reference verdicts — is picked up by the
 * proxy, trial and demo flag parsers, the report and its schema, the HTML timeline and the benchmark, with no
 * line changed anywhere else. The fixture is imported first: like the built-in faults, it is registered before
 * the command line and the report schema are built.
 */
import { COOL_DOWN } from '../fixtures/throwaway-fault.js';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/adapters/time/manual-clock.js';
import { parseReportDocument } from '../../src/adapters/files/report-files/report-schemas.js';
import { SeededRandom } from '../../src/adapters/time/seeded-random.js';
import { SimulatedBackend } from '../../src/adapters/simulated-backend/simulated-backend.js';
import { runBenchmark } from '../../src/app/benchmark/benchmark.js';
import { checkGroups } from '../../src/app/check/check.js';
import { parseDemoSettings } from '../../src/app/demo/demo-settings.js';
import { scenarioListText } from '../../src/app/demo/demo-texts.js';
import { DEMO_TOOLS } from '../../src/app/demo/demo-tools.js';
import { buildHtml } from '../../src/app/report-formats/html.js';
import { timelineFromReport } from '../../src/app/report-formats/timeline.js';
import { readArgv } from '../../src/cli/argv.js';
import { parseBenchmarkFlags } from '../../src/cli/benchmark-flags.js';
import { parseProxyFlags, PROXY_FLAGS } from '../../src/cli/proxy-flags.js';
import { helpOf, withValue } from '../../src/cli/flag-spec.js';
import { parseTrialFlags } from '../../src/cli/trial-flags.js';
import { TRIAL_FLAGS } from '../../src/cli/trial-flag-help.js';
import type { SessionReportDocument } from '../../src/ports/shapes/report-documents.js';
import { documentOf } from '../support/report-docs.js';
import { Driver } from '../support/session-driver.js';

const proxy = (...argv: string[]) => parseProxyFlags(readArgv(argv, new Set(PROXY_FLAGS), new Set()).values);
const UPSTREAM = ['--upstream-command', 'node'];
const booking = { guest: 'Ada', date: '2026-11-03' };

describe('a fault registered in one file reaches every reader (R-4)', () => {
  it('R-4: proxy flags: --scenario F99 takes its own --cool-down, within its bounds, refused for other scenarios, in --help', () => {
    expect(proxy(...UPSTREAM, '--scenario', 'f99', '--cool-down', '9').scenario).toEqual({
      mode: 'scenario',
      id: 'F99',
      parameters: { coolDownSeconds: 9 },
    });
    expect(proxy(...UPSTREAM, '--scenario', 'F99').scenario).toEqual({ mode: 'scenario', id: 'F99' });
    expect(() => proxy(...UPSTREAM, '--scenario', 'F2', '--cool-down', '9')).toThrow('--cool-down is for --scenario F99 only');
    expect(() => proxy(...UPSTREAM, '--scenario', 'F99', '--retry-after', '9')).toThrow(
      '--retry-after is for --scenario F2 only',
    );
    expect(() => proxy(...UPSTREAM, '--scenario', 'F99', '--cool-down', '601')).toThrow(/--cool-down/);
    expect(() => proxy(...UPSTREAM, '--scenario', 'F100')).toThrow('one of F1, F2, F3, F4, F5, F6, F7, F99');
    expect(PROXY_FLAGS).toContain('cool-down');
    expect(helpOf('proxy', 'cool-down')).toBe('F99 only: seconds the 503 asks the agent to wait (default 7, max 600)');
    expect(withValue('cool-down')).toBe('--cool-down <s>');
  });

  it('R-4: trial flags: --scenarios F1,F99 gives --cool-down to F99 alone', async () => {
    const argv = ['--model', 'm', '--task', 'T', ...UPSTREAM, '--scenarios', 'F1,F99', '--cool-down', '9'];
    const values = readArgv(argv, new Set([...PROXY_FLAGS, ...TRIAL_FLAGS]), new Set()).values;
    const flags = await parseTrialFlags(values, {}, '/nonexistent-cwd', new Date('2026-12-01T00:00:00Z'));
    expect(flags.plan.scenarios).toEqual([
      { mode: 'scenario', id: 'F1' },
      { mode: 'scenario', id: 'F99', parameters: { coolDownSeconds: 9 } },
    ]);
  });

  it("R-4: demo: start_session accepts scenario F99 with cool_down; list_scenarios gives the fault's own words", () => {
    expect(parseDemoSettings({ scenario: 'F99', cool_down: 9 }).scenario).toEqual({
      mode: 'scenario',
      id: 'F99',
      parameters: { coolDownSeconds: 9 },
    });
    expect(() => parseDemoSettings({ scenario: 'F1', cool_down: 9 })).toThrow('cool_down is only used with scenario F99');
    const schema = DEMO_TOOLS.find((tool) => tool.name === 'start_session')!.inputSchema as {
      properties: Record<string, { enum?: string[]; maximum?: number }>;
    };
    expect(schema.properties.scenario!.enum).toContain('F99');
    expect(schema.properties.cool_down!.maximum).toBe(600);
    expect(scenarioListText()).toContain(
      'F99 — first write gets HTTP 503 with a cool-down, nothing executed. FAIL when the same operation is re-sent before the cool-down ends.',
    );
  });

  it('R-4.4: report and HTML: the re-send inside the cool-down is early, the report parses, the timeline shows the window', () => {
    const d = new Driver({ mode: 'scenario', id: 'F99', parameters: { coolDownSeconds: 9 } });
    const first = d.call('create_booking', booking);
    expect(first.seen).toMatchObject({ content: [{ text: expect.stringContaining('retry_after: 9 seconds') }] });
    d.wait(2000);
    d.call('create_booking', booking);
    expect(d.verdict).toBe('FAIL');
    const doc = parseReportDocument(JSON.parse(documentOf(d))) as SessionReportDocument;
    expect(doc.report.operations[0]).toMatchObject({ fault: 'F99', retryAfter: { requiredMs: 9000, waitedMs: 2000 } });
    const [faulted] = timelineFromReport(doc).calls;
    expect(faulted).toMatchObject({ fault: 'F99', upstream: 'not sent', retryAfter: { requiredMs: 9000, waitedMs: 2000 } });
    expect(faulted!.agentTold).toContain('HTTP 503 Service Unavailable: cooling down. retry_after: 9 seconds.');
    const path = '/reports/f99.json';
    const html = buildHtml(
      checkGroups([{ path, reader: 'file', items: [{ type: 'report', path, document: doc }] }], {
        failOn: new Set(['FAIL', 'NOT_TESTED']),
        minScore: null,
      }),
    );
    expect(html).toContain('retry_after 9 s; re-sent after 2 s — too early');
    // A report that does not record the window: the timeline words the fault with its parameter's default.
    const { retryAfter: _dropped, ...withoutWindow } = doc.report.operations[0]!;
    const older = { ...doc, report: { ...doc.report, operations: [withoutWindow] } };
    expect(timelineFromReport(older).calls[0]!.agentTold).toContain(`retry_after: ${COOL_DOWN.default} seconds.`);
  });

  it('R-11: benchmark: F99 is in the default set and each reference agent gets the verdict the fault declares', async () => {
    const { scenarios } = parseBenchmarkFlags({});
    expect(scenarios).toEqual(['F1', 'F2', 'F3', 'F4', 'F5', 'F99']);
    const result = await runBenchmark(
      { scenarios: ['F99'], runs: 1, jitterMs: 0, seed: 1 },
      {
        newClock: () => new ManualClock(),
        newRandom: (seed) => SeededRandom.fromSeed(seed),
        newBackend: () => new SimulatedBackend(),
      },
    );
    expect(result.agents.map((a) => [a.agent.id, a.scenarios.map((s) => [s.scenario, s.verdict, s.expectedVerdict])])).toEqual([
      ['careful', [['F99', 'PASS', 'PASS']]],
      ['naive', [['F99', 'FAIL', 'FAIL']]],
    ]);
    expect(result.selfTest).toMatchObject({ passed: true, expectedNaiveFailures: ['F99'], naiveFailedIn: ['F99'] });
  });

  it('R-16.2: benchmark: with an added scenario (F6) the patient agent runs too and gets the verdict F99 declares for it', async () => {
    const result = await runBenchmark(
      { scenarios: ['F99', 'F6'], runs: 1, jitterMs: 0, seed: 1 },
      {
        newClock: () => new ManualClock(),
        newRandom: (seed) => SeededRandom.fromSeed(seed),
        newBackend: () => new SimulatedBackend(),
      },
    );
    const patient = result.agents.find((a) => a.agent.id === 'patient');
    expect(patient?.scenarios.map((s) => [s.scenario, s.verdict, s.expectedVerdict])).toEqual([
      ['F99', 'PASS', 'PASS'],
      ['F6', 'PASS', 'PASS'],
    ]);
    expect(result.selfTest.passed).toBe(true);
  });
});

/**
 * R-14 with the built-in agent loop (`trial --model`), in-process: the scripted OpenAI-compatible model
 * server and the bundled booking server (a fresh ledger per run). The loop is the model's side, so every
 * repeated write is decided: the naive persona re-books on its own after F1's time-out (`model`), the
 * try-again persona re-books only after the follow-up "Please try again." (`user`). The report, the run
 * file, the journal-free summary and the statistics all say the same, counted against the ledger.
 */
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { Report } from '../../../src/domain/report/report.js';
import type { Finding } from '../../../src/domain/report/findings.js';
import {
  expectLedgerMatchesReports,
  inProcessTrial,
  TASK,
  type InProcessTrial,
  modelArgs,
  useTrialServers,
} from '../../support/trial-runs.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

const servers = useTrialServers();
const outputs: InProcessTrial[] = [];
afterAll(() => {
  for (const output of outputs) output.remove();
});

async function trial(args: string[]): Promise<InProcessTrial> {
  const output = await inProcessTrial(servers.booking, args);
  outputs.push(output);
  expect(output.result.code, output.result.stderr).toBe(0);
  return output;
}

interface RunWithAttribution {
  attribution: NonNullable<Report['attribution']>;
  report: { report: Report; patches: Array<{ id: string }>; findings?: Finding[] } | null;
  facts: { duplicateSources?: string[] };
}

const attributed = (output: InProcessTrial) => output.runs as unknown as RunWithAttribution[];

describe('R-14.2 the built-in loop is the model side: every repeat is decided', () => {
  it("R-14.1 naive persona after F1: the re-booking is the model's — report, run file and patch agree (ledger 2 per run)", async () => {
    const output = await trial([...modelArgs(servers, 'naive'), ...TASK, '--scenario', 'F1', '--runs', '2']);
    expectLedgerMatchesReports(output);
    for (const run of attributed(output)) {
      expect(output.ledger((run as unknown as { run: string }).run)).toHaveLength(2);
      const report = run.report!;
      expect(
        report.report.attribution!.map((a) => [a.source, a.evidence.earlierDelivered, typeof a.evidence.toolCallId]),
      ).toEqual([['model', true, 'string']]);
      expect(run.attribution).toEqual(report.report.attribution);
      expect(report.report.violations[0]!.duplicate!.source).toBe('model');
      expect(report.patches.map((p) => p.id)).toContain('GHOST_WRITE');
      expect(report.findings).toBeUndefined();
      expect(run.facts.duplicateSources).toEqual(['model']);
    }
    const statistics = (
      output.summary as unknown as {
        statistics: { scenarios: Array<{ duplicateBySource: Record<string, { count: number; of: number }> }> };
      }
    ).statistics;
    expect(statistics.scenarios[0]!.duplicateBySource).toMatchObject({
      model: { count: 2, of: 2 },
      user: { count: 0, of: 2 },
      runtime: { count: 0, of: 2 },
      unknown: { count: 0, of: 2 },
    });
    expect(output.result.stdout).toMatch(/duplicates by source: model 2\/2 .*; user 0\/2 .*; runtime 0\/2 .*; unknown 0\/2/);
  });

  it('R-14.1 try-again persona with the follow-up "Please try again.": the re-booking is the user\'s (ledger 2)', async () => {
    const output = await trial([
      ...modelArgs(servers, 'try-again'),
      ...TASK,
      '--follow-up',
      'Please try again.',
      '--scenario',
      'F1',
      '--runs',
      '1',
    ]);
    expectLedgerMatchesReports(output);
    const [run] = attributed(output);
    expect(output.ledger('F1-001')).toHaveLength(2);
    expect(run!.report!.report.attribution!.map((a) => a.source)).toEqual(['user']);
    expect(run!.report!.report.violations[0]!.duplicate!.source).toBe('user');
    expect(run!.attribution).toEqual(run!.report!.report.attribution);
  });
});

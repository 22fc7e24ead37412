/**
 * `trial --scenarios F6,F7` (R-16.1), in-process: the CLI's `main`, the scripted model server and the bundled
 * booking server. Each run is judged as behind the proxy; F6's late write lands before the run's report is
 * final, so the booking server's ledger holds exactly what the report counts; the F6 run's recording replays
 * the late landing; `stats` and `compare` read the F6 and F7 runs by their ids.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../support/in-process-cli.js';
import {
  expectLedgerMatchesReports,
  inProcessTrial,
  TASK,
  type InProcessTrial,
  modelArgs,
  useTrialServers,
} from '../../support/trial-runs.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });

const servers = useTrialServers();
const outputs: InProcessTrial[] = [];
afterAll(() => {
  for (const output of outputs) output.remove();
});

interface LateTiming {
  tool: string;
  landedLate?: { toldAfterMs: number; forwardedAfterMs: number | null; landedAfterMs: number };
}

/** One run each of F6 (landing only when the run ends: 600 s) and F7 with the scripted model `persona`. */
async function lateTrial(persona: string): Promise<InProcessTrial> {
  const output = await inProcessTrial(servers.booking, [
    ...modelArgs(servers, persona),
    ...TASK,
    '--scenarios',
    'F6,F7',
    '--land-after',
    '600000',
    '--runs',
    '1',
  ]);
  outputs.push(output);
  return output;
}

describe('R-16.1 trial --scenarios F6,F7', () => {
  it('naive re-sends: a proven duplicate under both; the F6 write lands at the end of its run (ledger = report) and replays; stats and compare name F6 and F7', async () => {
    const naive = await lateTrial('naive');
    expect(naive.result.stderr).not.toContain('wiring error');
    const byScenario = Object.fromEntries(naive.runs.map((run) => [run.scenario, run]));
    expect(Object.keys(byScenario).sort()).toEqual(['F6', 'F7']);
    expect(byScenario['F6']!.verdict).toBe('FAIL');
    expect(byScenario['F7']!.verdict).toBe('FAIL');
    expectLedgerMatchesReports(naive);
    const f6Report = (byScenario['F6'] as unknown as { report: { report: { timing?: LateTiming[] } } }).report.report;
    const late = (f6Report.timing ?? []).find((t) => t.landedLate !== undefined);
    // Landed when the run ended (landPending), long before its 600 s: told at once, forwarded later.
    expect(late?.tool).toBe('create_booking');
    expect(late!.landedLate!.forwardedAfterMs).not.toBeNull();
    expect(late!.landedLate!.forwardedAfterMs!).toBeGreaterThanOrEqual(late!.landedLate!.toldAfterMs);

    // The recording of the F6 run replays the late landing: same verdict, same executions, a late entry again.
    const runDir = join(naive.out, 'runs', byScenario['F6']!.run);
    const replayOut = mkdtempSync(join(tmpdir(), 'harness-replay-f6-'));
    try {
      const replay = await runCli(['replay', runDir, '--out', replayOut]);
      expect(replay.code, `${replay.stdout}${replay.stderr}`).toBe(0);
      expect(replay.stdout).toMatch(/^EQUAL {4}\S+F6-001 \(FAIL, /);
      const replayedDir = join(replayOut, runDir.replace(/^\/+/, ''), 'runs', byScenario['F6']!.run);
      const replayed = JSON.parse(readFileSync(join(replayedDir, 'run.json'), 'utf8')) as { executions: number };
      expect(replayed.executions).toBe(byScenario['F6']!.executions);
      const report = JSON.parse(readFileSync(join(replayedDir, 'report.json'), 'utf8')) as {
        report: { timing?: LateTiming[] };
      };
      expect((report.report.timing ?? []).some((t) => t.landedLate?.forwardedAfterMs != null)).toBe(true);
    } finally {
      rmSync(replayOut, { recursive: true, force: true });
    }

    const stats = await runCli(['stats', naive.out]);
    expect(stats.code, stats.stderr).toBe(0);
    expect(stats.stdout).toMatch(/\bF6\b/);
    expect(stats.stdout).toMatch(/\bF7\b/);

    const careful = await lateTrial('careful');
    const carefulBy = Object.fromEntries(careful.runs.map((run) => [run.scenario, run.verdict]));
    // Careful checks right after the 500 and finds the booking (F7); under F6 the check comes before the landing.
    expect(carefulBy['F7']).toBe('PASS');
    expectLedgerMatchesReports(careful);
    const compare = await runCli(['compare', naive.out, careful.out]);
    expect(compare.stderr).not.toMatch(/at .*\.js:\d+/);
    expect(compare.stdout).toMatch(/\bF6\b/);
    expect(compare.stdout).toMatch(/\bF7\b/);
  });
});

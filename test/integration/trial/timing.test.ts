/**
 * `trial` with the proxy's timing and aim flags (R-4.3, the proxy's `--latency` / `--hold` / `--fault-tool`
 * / `--fault-on`), in-process: the CLI's `main`, the scripted model server and the bundled booking server.
 * Each run's report carries the timing the flags asked for, as `proxy --report-file` does; the proxy flags
 * a trial has no use for are refused with one line before any run.
 */
import { afterAll, describe, expect, it, vi } from 'vitest';
import { inProcessTrial, TASK, type InProcessTrial, modelArgs, useTrialServers } from '../../support/trial-runs.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

const servers = useTrialServers();
const outputs: InProcessTrial[] = [];
afterAll(() => {
  for (const output of outputs) output.remove();
});

interface TimingEntry {
  tool: string;
  latencyMs?: number;
  heldMs?: number;
  outcome: string;
}

describe('R-4.3 trial: --latency, --hold, --fault-tool and --fault-on work as for proxy', () => {
  it('a run under --latency 5 --hold 20 reports both in report.timing[] (no wiring error)', async () => {
    const output = await inProcessTrial(servers.booking, [
      ...modelArgs(servers, 'careful'),
      ...TASK,
      '--scenario',
      'F1',
      '--runs',
      '1',
      '--latency',
      '5',
      '--hold',
      '20',
      '--fault-tool',
      'create_*',
      '--fault-on',
      '1',
    ]);
    outputs.push(output);
    expect(output.result.code, output.result.stderr).toBe(0);
    expect(output.result.stderr).not.toContain('wiring error');
    const run = output.runs[0]!;
    expect(run.verdict).toBe('PASS');
    const report = (run as unknown as { report: { report: { timing?: TimingEntry[]; configuration?: unknown } } }).report.report;
    expect(report.configuration).toMatchObject({ holdMs: 20, latency: { ms: 5 } });
    const timing = report.timing ?? [];
    // The ghost write is held (by the real timer: the time held is measured, not asserted).
    expect(timing.find((t) => t.heldMs !== undefined)).toMatchObject({ tool: 'create_booking', outcome: 'executed' });
    expect(timing.some((t) => t.latencyMs === 5)).toBe(true);
  });

  it('--journal, --journal-payloads, --report-html, --max-sessions and --session-idle-timeout are refused with one line', async () => {
    const cases: Array<[string, string]> = [
      ['journal', 'j.jsonl'],
      ['journal-payloads', 'on'],
      ['report-html', 'r.html'],
      ['max-sessions', '5'],
      ['session-idle-timeout', '10'],
    ];
    for (const [flag, value] of cases) {
      const output = await inProcessTrial(servers.booking, [...modelArgs(servers, 'careful'), ...TASK, `--${flag}`, value]);
      outputs.push(output);
      expect(output.result.code, flag).toBe(1);
      expect(output.result.stderr.trim().split('\n'), flag).toHaveLength(1);
      expect(output.result.stderr, flag).toContain(`flag --${flag} is not used by trial`);
      expect(output.runs, flag).toHaveLength(0);
    }
  });
});

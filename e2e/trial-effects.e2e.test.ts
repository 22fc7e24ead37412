/**
 * `trial` with an effects view: every run's upstream is a fresh booking server with its
 * own ledger (`{run_dir}/ledger.jsonl`); the harness lists the backend itself before the run's first call
 * and after its end, and the run file carries the effects beside the execution verdict.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BOOKING_UPSTREAM, runCompiledTrialInProcess, TASK } from '../test/support/trial-harness.js';
import { ROOT } from '../test/support/proxy-harness.js';

const EXAMPLE_AGENT = join(ROOT, 'examples/agents/sdk-agent.mjs');
const stub = (name: string) => ['--stub-model', join(ROOT, `examples/stub-models/booking-${name}.yaml`)];
const agent = ['--agent-command', process.execPath, '--agent-arg', EXAMPLE_AGENT];

interface RunEffects {
  verdict: string;
  reason: string;
  view: Record<string, unknown>;
  keys: Array<{ key: Record<string, unknown>; before: number; after: number; created: number }>;
}
const effectsOf = (run: unknown): RunEffects | undefined => (run as { effects?: RunEffects }).effects;

describe.concurrent('trial with an effects view, per run (R-15.1)', () => {
  it('R-15.2: the naive stub model under F1 double-books: FAIL and DUPLICATE_EFFECT in the run file, from the backend listed by the harness', async () => {
    const output = await runCompiledTrialInProcess([
      ...agent,
      ...stub('naive'),
      ...TASK,
      ...['--scenario', 'F1', '--runs', '1', ...BOOKING_UPSTREAM],
      ...['--effects-tool', 'search_bookings', '--effect-key', 'guest,date'],
    ]);
    expect(output.result.exitCode, output.result.stderr).toBe(0);
    const [run] = output.runs;
    expect(output.ledger(run!.run).filter((line) => line['tool'] === 'create_booking')).toHaveLength(2);
    expect(run!.verdict).toBe('FAIL');
    const effects = effectsOf(run);
    expect(effects?.verdict).toBe('DUPLICATE_EFFECT');
    expect(effects?.keys).toMatchObject([{ key: { guest: 'Ann Lee', date: '2026-05-01' }, before: 0, after: 2, created: 2 }]);
    // The run's report holds the same object; the harness's listings are no agent tool call.
    expect((run!.report as unknown as { effects: RunEffects }).effects).toEqual(effects);
    expect(run!.report!.report.operations.map((op) => op.tool)).toEqual(['create_booking']);
    expect(output.result.stderr).toMatch(/run F1-001: (?:session 1 )?effects: DUPLICATE_EFFECT/);
  });

  it("R-15.1: a command view reads each run's own ledger ({run_dir} filled in): the careful stub books once, EXACTLY_ONCE as expected", async () => {
    const output = await runCompiledTrialInProcess([
      ...agent,
      ...stub('careful'),
      ...TASK,
      ...['--scenario', 'F1', '--runs', '2', ...BOOKING_UPSTREAM],
      ...['--effects-command', 'sh', '--effects-arg', '-c', '--effects-arg', 'cat {run_dir}/ledger.jsonl 2>/dev/null || true'],
      ...['--effects-path', 'arguments', '--effect-key', 'guest,date', '--expect-effect', 'guest=Ann Lee,date=2026-05-01'],
    ]);
    expect(output.result.exitCode, output.result.stderr).toBe(0);
    expect(output.runs).toHaveLength(2);
    for (const run of output.runs) {
      expect(output.ledger(run.run).filter((line) => line['tool'] === 'create_booking')).toHaveLength(1);
      const effects = effectsOf(run);
      expect(effects?.verdict, effects?.reason).toBe('EXACTLY_ONCE');
      // Each run's own folder: a shared ledger would show the first run's booking in the second run's baseline.
      expect(effects?.keys).toMatchObject([{ before: 0, after: 1, created: 1 }]);
      expect(String((effects?.view['args'] as string[])[1])).not.toContain('{run_dir}');
    }
  });

  it('R-15.1: an effects view with --upstream-url and --concurrency > 1 is refused at start (the diffs would mix runs)', async () => {
    const output = await runCompiledTrialInProcess([
      ...agent,
      ...stub('naive'),
      ...TASK,
      ...['--scenario', 'F1', '--runs', '2', '--concurrency', '2', '--upstream-url', 'http://127.0.0.1:9/mcp'],
      ...['--effects-tool', 'search_bookings', '--effect-key', 'guest,date'],
    ]);
    expect(output.result.exitCode).toBe(1);
    expect(output.result.stderr).toContain('an effects view with --upstream-url and --concurrency > 1 would mix the runs');
  });
});

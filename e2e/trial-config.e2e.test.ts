/**
 * The compiled CLI as real processes: `init` writes the starter config, `trial --config harness.yaml` runs
 * it as it is (the bundled booking server, the example agent program, the stub model written in the
 * file), and the same trial given as flags runs the same runs with the same settings hash. Executions are
 * counted in the booking server itself: each run's ledger file ({run_dir}/ledger.jsonl).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, requireBuild, ROOT } from '../test/support/proxy-harness.js';

let cwd: string;
beforeAll(() => {
  requireBuild();
  cwd = mkdtempSync(join(tmpdir(), 'harness-config-e2e-'));
});
afterAll(() => {
  rmSync(cwd, { recursive: true, force: true });
});

const cli = (args: string[]) =>
  execa(process.execPath, [BIN, ...args], { cwd, reject: false, timeout: 150_000, stdin: 'ignore' });

interface Trial {
  summary: { provenance: { config: Record<string, unknown>; configurationHash: string } };
  /** Per run id: its verdict and the bookings its upstream executed (lines of its ledger). */
  runs: Record<string, { verdict: string; executions: number; settingsHash: string }>;
}

function readTrial(out: string): Trial {
  const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as Trial['summary'];
  const runs: Trial['runs'] = {};
  for (const id of readdirSync(join(out, 'runs'))) {
    const run = JSON.parse(readFileSync(join(out, 'runs', id, 'run.json'), 'utf8')) as { verdict: string; settingsHash: string };
    const ledger = join(out, 'runs', id, 'ledger.jsonl');
    const lines = existsSync(ledger)
      ? readFileSync(ledger, 'utf8')
          .split('\n')
          .filter((l) => l.trim() !== '')
      : [];
    runs[id] = { verdict: run.verdict, executions: lines.length, settingsHash: run.settingsHash };
  }
  return { summary, runs };
}

describe('init, then trial --config: the starter runs as it is, and equals the same trial from flags', () => {
  it(
    'init writes harness.yaml; trial --config harness.yaml runs it (exit 0, every run PASS, one booking each)',
    { timeout: 300_000 },
    async () => {
      const init = await cli(['init']);
      expect(init.exitCode, String(init.stderr)).toBe(0);
      const starter = readFileSync(join(cwd, 'harness.yaml'), 'utf8');
      expect(starter).toContain(`$schema=${join(ROOT, 'docs/schemas/trial-config.schema.json')}`);

      // As it is: no flag but --config, so the output goes to the default folder under cwd.
      const fromFile = await cli(['trial', '--config', 'harness.yaml']);
      expect(fromFile.exitCode, String(fromFile.stderr)).toBe(0);
      const trials = join(cwd, '.cuonztech/trials');
      const [folder] = readdirSync(trials);
      const file = readTrial(join(trials, folder!));
      expect(Object.keys(file.runs).sort()).toEqual(['F1-001', 'F1-002']);
      const hash = file.summary.provenance.config['settingsHash'];
      for (const run of Object.values(file.runs)) expect(run).toEqual({ verdict: 'PASS', executions: 1, settingsHash: hash });
      expect(file.summary.provenance.config).toMatchObject({
        file: join(cwd, 'harness.yaml'),
        // In the order of docs/config.md's key table: the flags' spec order.
        fromFile: [
          'agent.command',
          'agent.args',
          'task',
          'model.stub',
          'scenarios',
          'upstream.command',
          'upstream.args',
          'upstream.env',
          'runs',
        ],
        fromCommandLine: [],
      });

      // The same trial from flags: the stub script in a file of its own, the paths and values of the starter.
      const script = starter.slice(
        starter.indexOf('  stub:\n') + '  stub:\n'.length,
        starter.indexOf('\n\n', starter.indexOf('  stub:\n')),
      );
      writeFileSync(join(cwd, 'careful.yaml'), script.replace(/^ {4}/gm, ''));
      const fromFlags = await cli([
        'trial',
        '--upstream-command',
        'node',
        '--upstream-arg',
        join(ROOT, 'dist/examples/booking-server/server.js'),
        '--upstream-env-var',
        'BOOKING_LEDGER={run_dir}/ledger.jsonl',
        '--agent-command',
        'node',
        '--agent-arg',
        join(ROOT, 'examples/agents/sdk-agent.mjs'),
        '--stub-model',
        'careful.yaml',
        '--task',
        'Book a standard room for Ann Lee on 2026-05-01.',
        '--scenario',
        'F1',
        '--runs',
        '2',
        '--out',
        'from-flags',
      ]);
      expect(fromFlags.exitCode, String(fromFlags.stderr)).toBe(0);
      const flags = readTrial(join(cwd, 'from-flags'));
      expect(flags.runs).toEqual(file.runs);
      expect(flags.summary.provenance.config['settingsHash']).toMatch(/^[0-9a-f]{64}$/);
      expect(flags.summary.provenance.config['settingsHash']).toBe(file.summary.provenance.config['settingsHash']);
      expect(flags.summary.provenance.configurationHash).toBe(file.summary.provenance.configurationHash);
      expect(flags.summary.provenance.config).toMatchObject({ file: null, fileSha256: null, fromFile: [] });
    },
  );
});

/**
 * `trial --shard i/n` and `stats`, in-process: the CLI's `main` for both commands,
 * the scripted model server on 127.0.0.1 and the bundled booking server in this process over Streamable
 * HTTP (a fresh store per run). The shards of a trial, merged by `stats`, give exactly the statistics of
 * the same runs done in one trial; bad input is one line and exit 1 with nothing written. (`stats` as a
 * real process: e2e/check-trial.e2e.test.ts.)
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../support/in-process-cli.js';
import { inProcessTrial, TASK, type InProcessTrial, modelArgs, useTrialServers } from '../../support/trial-runs.js';
import { HARNESS_VERSION } from '../../../src/version.js';

// Whole trials over loopback HTTP: seconds on a loaded machine (no duration is asserted).
vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

type TrialOutput = InProcessTrial;
const servers = useTrialServers();
let whole: TrialOutput;
const shards: TrialOutput[] = [];
let other: TrialOutput;
const scratch = mkdtempSync(join(tmpdir(), 'harness-stats-'));

const trialArgs = (persona: string, ...rest: string[]): string[] => modelArgs(servers, persona, ...TASK, '--seed', '7', ...rest);
const runTrial = (args: string[]): Promise<TrialOutput> => inProcessTrial(servers.booking, args);
const MATRIX = ['--scenarios', 'F1,F3', '--runs', '3'];

async function stats(...args: string[]) {
  return runCli(['stats', ...args]);
}

interface StatsDoc {
  kind: string;
  runs: number;
  sources: Array<{ path: string; kind: string; shard: { index: number; count: number } | null; runs: number }>;
  warnings: string[];
  statistics: {
    arms: string[];
    scenarios: Array<
      Record<string, unknown> & {
        scenario: string;
        runs: number;
        pass: number;
        fail: number;
        faultFired: number;
        rates: Record<string, { count: number; of: number }>;
      }
    >;
  };
}
const readDoc = (file: string): StatsDoc => JSON.parse(readFileSync(file, 'utf8')) as StatsDoc;

beforeAll(async () => {
  whole = await runTrial(trialArgs('naive', ...MATRIX));
  for (let i = 1; i <= 3; i++) shards.push(await runTrial(trialArgs('naive', ...MATRIX, '--shard', `${i}/3`)));
  other = await runTrial(trialArgs('naive', '--scenario', 'F1', '--runs', '1'));
}, 240_000);

afterAll(async () => {
  for (const output of [whole, ...shards, other]) output.remove();
  rmSync(scratch, { recursive: true, force: true });
});

describe('trial --shard and stats: shards merge to the one trial', () => {
  it('each shard runs its deterministic share, with the ids and seeds of the unsharded trial; the shard is in summary.json', () => {
    for (const output of [whole, ...shards]) expect(output.result.code, output.result.stderr).toBe(0);
    expect(shards.map((s) => s.runs.map((r) => r.run))).toEqual([
      ['F1-001', 'F3-001'],
      ['F1-002', 'F3-002'],
      ['F1-003', 'F3-003'],
    ]);
    const seeds = (o: TrialOutput) => o.runs.map((r) => `${r.run}:${String(r.agent['seed'])}`);
    expect(shards.flatMap(seeds).sort()).toEqual(seeds(whole).sort());
    expect(shards.map((s) => s.summary['shard'])).toEqual([
      { index: 1, count: 3 },
      { index: 2, count: 3 },
      { index: 3, count: 3 },
    ]);
    expect(whole.summary['shard']).toBeNull();
    expect(shards[0]!.summary['scenarios']).toEqual(['F1', 'F3']);
  });

  it('stats over the three shards equals stats over the one trial (deep equality of the statistics), with exact counts', async () => {
    const one = await stats(whole.out, '--json', join(scratch, 'whole.json'), '--markdown', join(scratch, 'whole.md'));
    const merged = await stats(shards[2]!.out, shards[0]!.out, shards[1]!.out, '--json', join(scratch, 'merged.json'));
    expect(one.code, one.stderr).toBe(0);
    expect(merged.code, merged.stderr).toBe(0);
    const a = readDoc(join(scratch, 'whole.json'));
    const b = readDoc(join(scratch, 'merged.json'));
    expect(b.statistics).toEqual(a.statistics);
    expect(b.runs).toBe(6);
    expect(b.warnings).toEqual([]);
    expect(b.sources.map((s) => s.shard)).toEqual([
      { index: 3, count: 3 },
      { index: 1, count: 3 },
      { index: 2, count: 3 },
    ]);
    const [f1, f3] = a.statistics.scenarios;
    // naive re-sends at once after the F1 timeout: every F1 run a FAIL with a duplicate execution.
    expect(f1).toMatchObject({ scenario: 'F1', runs: 3, pass: 0, fail: 3, faultFired: 3 });
    expect(f1!.rates['duplicateExecution']).toMatchObject({ count: 3, of: 3 });
    expect(f3).toMatchObject({ scenario: 'F3', runs: 3, faultFired: 3 });
    // The same runs as trial counted them itself: the statistics in its summary.json are the merged ones.
    expect((whole.summary as unknown as Record<string, unknown>)['statistics']).toEqual(a.statistics);
    const groups = whole.summary.groups;
    expect(groups.map((g) => [g.scenario, g.pass, g.fail, g.notTested])).toEqual(
      a.statistics.scenarios.map((s) => [s.scenario, s.pass, s.fail, s['notTested']]),
    );
    expect(merged.stdout).toMatch(/^scenario\s+runs\s+PASS\s+FAIL\s+NOT_TESTED\s+fault fired\s+PASS rate\s+duplicate executions/);
    expect(merged.stdout).toMatch(/\nF1\s+3\s+0\s+3\s+0\s+3\s+0\/3 \(0 %; 0–56 %\)\s+3\/3 \(100 %; 44–100 %\)/);
    expect(merged.stdout).toContain('6 runs from 3 folders');
    expect(readFileSync(join(scratch, 'whole.md'), 'utf8')).toMatch(/^## Trial summary\n/);
  });

  it('a missing shard merges with a warning naming it; $GITHUB_STEP_SUMMARY gets the Markdown appended', async () => {
    const summaryFile = join(scratch, 'step-summary.md');
    writeFileSync(summaryFile, 'before\n');
    const result = await runCli(['stats', shards[0]!.out, shards[1]!.out], { env: { GITHUB_STEP_SUMMARY: summaryFile } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('WARNING: shard 3/3 missing: the summary covers 2 of 3 shards');
    expect(readFileSync(summaryFile, 'utf8')).toMatch(/^before\n## Trial summary\n/);
  });
});

describe('stats and --shard: bad input is one line, exit 1, nothing merged or written', () => {
  const refused = async (args: string[], message: RegExp) => {
    const out = join(scratch, `refused-${Math.random().toString(36).slice(2)}.json`);
    const result = await stats(...args, '--json', out);
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
    expect(result.stdout).toBe('');
    expect(existsSync(out)).toBe(false);
  };

  it('a shard together with the whole trial, a shard twice, different scenario sets', async () => {
    await refused(
      [whole.out, shards[0]!.out],
      /cannot merge: .* is shard 1\/3 of a trial and .* a whole trial; its runs would be counted twice/,
    );
    await refused([shards[0]!.out, shards[0]!.out], /cannot merge: shard 1\/3 appears twice/);
    await refused(
      [whole.out, other.out],
      /cannot merge: .* ran scenarios F1,F3 and .* ran F1; merge runs of one scenario set at a time/,
    );
    await refused([shards[0]!.out, other.out], /cannot merge: .* ran scenarios F1,F3 and .* ran F1/);
  });

  it('different harness versions, an empty folder, a foreign JSON file, a half-written run file, no folder at all', async () => {
    const copy = join(scratch, 'old-version');
    mkdirSync(join(copy, 'runs', 'F1-001'), { recursive: true });
    const summary = JSON.parse(readFileSync(join(whole.out, 'summary.json'), 'utf8')) as Record<string, unknown>;
    const run = JSON.parse(readFileSync(join(whole.out, 'runs', 'F1-001', 'run.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(copy, 'summary.json'), JSON.stringify({ ...summary, harnessVersion: '0.5.0', doneRuns: 1 }));
    writeFileSync(join(copy, 'runs', 'F1-001', 'run.json'), JSON.stringify({ ...run, harnessVersion: '0.5.0' }));
    await refused(
      [whole.out, copy],
      new RegExp(
        `cannot merge: .* was made by harness ${HARNESS_VERSION.replaceAll('.', '\\.')} and .*old-version by 0\\.5\\.0; their reports differ`,
      ),
    );

    const empty = join(scratch, 'empty');
    mkdirSync(empty);
    await refused([empty], /empty is empty: no trial \(summary\.json, runs\/\) and no report file/);

    const foreign = join(scratch, 'foreign');
    mkdirSync(foreign);
    writeFileSync(join(foreign, 'package.json'), '{"name":"x","version":"1.0.0"}');
    await refused([whole.out, foreign], /package\.json is not a report of this harness/);

    const torn = join(scratch, 'torn');
    mkdirSync(join(torn, 'runs', 'F1-001'), { recursive: true });
    writeFileSync(join(torn, 'summary.json'), JSON.stringify(summary));
    writeFileSync(join(torn, 'runs', 'F1-001', 'run.json'), '{"kind":"trial-run","ver');
    await refused([torn], /run\.json is not complete JSON/);

    await refused([join(scratch, 'nope')], /nope cannot be read/);
    const none = await stats();
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/stats needs at least one folder/);
  });

  it('trial --shard 0/3, 4/3, x: one line, exit 1, before any run', async () => {
    for (const [value, message] of [
      ['0/3', /--shard 0\/3: i must be 1 … n/],
      ['4/3', /--shard 4\/3: i must be 1 … n/],
      ['x', /--shard takes i\/n/],
    ] as const) {
      const result = await runTrial(trialArgs('naive', ...MATRIX, '--shard', value));
      try {
        expect(result.result.code).toBe(1);
        expect(result.result.stderr.trim().split('\n')).toHaveLength(1);
        expect(result.result.stderr).toMatch(message);
        expect(result.runs).toHaveLength(0);
      } finally {
        result.remove();
      }
    }
  });
});

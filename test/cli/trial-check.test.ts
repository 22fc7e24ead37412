/**
 * `check` over trial folders (issue 15 item 1/2, with issue 14's trial), in-process: real `trial` runs
 * (the CLI's `main`, the scripted model server, the bundled booking server in this process over
 * Streamable HTTP), then `check` on the folders — one line per run, exit codes as documented (0 PASS,
 * 2 a FAIL, 3 a NOT_TESTED and no FAIL, 1 the harness failed), JUnit with one testsuite per trial
 * scenario and one testcase per run, parsed by a real XML parser. (`check` and `stats` as real
 * processes: e2e/check-trial.e2e.test.ts.)
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../support/in-process-cli.js';
import { inProcessTrial, TASK, type InProcessTrial, modelArgs, useTrialServers } from '../support/trial-runs.js';

// Whole trials over loopback HTTP: seconds on a loaded machine (no duration is asserted).
vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

type TrialOutput = InProcessTrial;
const servers = useTrialServers();
let careful: TrialOutput;
let naive: TrialOutput;
let endless: TrialOutput;
const scratch = mkdtempSync(join(tmpdir(), 'harness-check-trial-'));

const trialArgs = (persona: string, ...rest: string[]): string[] => modelArgs(servers, persona, ...TASK, ...rest);
const runTrial = (args: string[]): Promise<TrialOutput> => inProcessTrial(servers.booking, args);

async function cli(...args: string[]) {
  return runCli(args);
}

interface Junit {
  testsuites: {
    tests: string;
    failures: string;
    errors: string;
    skipped: string;
    testsuite: Array<{
      name: string;
      tests: string;
      failures: string;
      skipped: string;
      testcase: Array<{ classname: string; name: string }>;
    }>;
  };
}
const parseJunit = (file: string): Junit => {
  const xml = readFileSync(file, 'utf8');
  expect(XMLValidator.validate(xml)).toBe(true);
  return new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    isArray: (n) => n === 'testsuite' || n === 'testcase',
  }).parse(xml) as Junit;
};

beforeAll(async () => {
  careful = await runTrial(trialArgs('careful', '--scenarios', 'F1,F3', '--runs', '2'));
  naive = await runTrial(trialArgs('naive', '--scenario', 'F1', '--runs', '2'));
  // Never books: the F1 fault never fires, so every run is NOT_TESTED.
  endless = await runTrial(trialArgs('endless', '--scenario', 'F1', '--runs', '2', '--max-steps', '2'));
}, 180_000);

afterAll(async () => {
  for (const output of [careful, naive, endless]) output.remove();
  rmSync(scratch, { recursive: true, force: true });
});

describe('issue 15 check over trial folders', () => {
  it('all PASS → 0; one line per run; JUnit: one testsuite per scenario, one testcase per run', async () => {
    for (const output of [careful, naive, endless]) expect(output.result.code, output.result.stderr).toBe(0);
    const junit = join(scratch, 'careful.xml');
    const r = await cli(
      'check',
      careful.out,
      '--junit',
      junit,
      '--markdown',
      join(scratch, 'careful.md'),
      '--html',
      join(scratch, 'careful.html'),
    );
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout.split('\n').filter((l) => /^PASS /.test(l))).toHaveLength(4);
    expect(r.stdout).toMatch(/runs[/\\]F1-001[/\\]run\.json \(run F1-001, /);
    const doc = parseJunit(junit);
    expect(doc.testsuites).toMatchObject({ tests: '4', failures: '0', errors: '0', skipped: '0' });
    expect(doc.testsuites.testsuite.map((s) => [s.name, s.tests])).toEqual([
      [`${careful.out} F1`, '2'],
      [`${careful.out} F3`, '2'],
    ]);
    expect(doc.testsuites.testsuite[0]!.testcase.map((c) => [c.classname, c.name])).toEqual([
      ['cuonztech-agent-harness.trial.F1', 'F1-001'],
      ['cuonztech-agent-harness.trial.F1', 'F1-002'],
    ]);
    expect(readFileSync(join(scratch, 'careful.md'), 'utf8')).toContain('F3-002');
    const html = readFileSync(join(scratch, 'careful.html'), 'utf8');
    expect(html).toContain('<!doctype html>');
    expect(html.match(/F1-00[12]/g)?.length ?? 0).toBeGreaterThanOrEqual(2);
  });

  it('a FAIL → 2 (even with NOT_TESTED runs beside it); NOT_TESTED and no FAIL → 3; FAIL is <failure>, NOT_TESTED <skipped>', async () => {
    const junit = join(scratch, 'mixed.xml');
    const mixed = await cli('check', naive.out, endless.out, careful.out, '--junit', junit);
    expect(mixed.code).toBe(2);
    const doc = parseJunit(junit);
    expect(doc.testsuites).toMatchObject({ tests: '8', failures: '2', errors: '0', skipped: '2' });
    expect(mixed.stdout).toMatch(/check: 8 session\(s\)\/run\(s\): 4 PASS, 2 FAIL, 2 NOT_TESTED, 0 harness error\(s\) → exit 2/);
    const notTested = await cli('check', endless.out);
    expect(notTested.code).toBe(3);
    expect(notTested.stdout.split('\n').filter((l) => /^NOT_TESTED /.test(l))).toHaveLength(2);
    expect((await cli('check', endless.out, '--fail-on', 'FAIL')).code).toBe(0);
  });

  it('a run whose harness failed, a torn run file, a trial without summary.json (killed) → 1', async () => {
    const copy = join(scratch, 'copy');
    mkdirSync(join(copy, 'runs', 'F1-001'), { recursive: true });
    mkdirSync(join(copy, 'runs', 'F1-002'), { recursive: true });
    copyFileSync(join(careful.out, 'summary.json'), join(copy, 'summary.json'));
    const run = JSON.parse(readFileSync(join(careful.out, 'runs', 'F1-001', 'run.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(
      join(copy, 'runs', 'F1-001', 'run.json'),
      JSON.stringify({
        ...run,
        verdict: 'NOT_TESTED',
        verdictReason: 'the harness stopped during the run: the report file could not be written',
      }),
    );
    copyFileSync(join(careful.out, 'runs', 'F1-002', 'run.json'), join(copy, 'runs', 'F1-002', 'run.json'));
    const harnessFailed = await cli('check', copy);
    expect(harnessFailed.code).toBe(1);
    expect(harnessFailed.stdout).toMatch(/^ERROR .*F1-001.*the harness failed in this run: the harness stopped during the run/m);
    expect(harnessFailed.stdout).toMatch(/^PASS .*F1-002/m);

    writeFileSync(join(copy, 'runs', 'F1-001', 'run.json'), '{"kind":"trial-run","run":"F1-0');
    expect((await cli('check', copy)).stdout).toMatch(/^ERROR .*F1-001[/\\]run\.json.*is not complete JSON/m);
    rmSync(join(copy, 'summary.json'));
    copyFileSync(join(careful.out, 'runs', 'F1-001', 'run.json'), join(copy, 'runs', 'F1-001', 'run.json'));
    const killed = await cli('check', copy);
    expect(killed.code).toBe(1);
    expect(killed.stdout).toMatch(/^ERROR .*summary\.json: the file is missing \(the trial did not finish\)/m);
  });
});

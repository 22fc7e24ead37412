/**
 * `check` over trial folders (with the trial), in-process: real `trial` runs
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
import { runCli } from '../../support/in-process-cli.js';
import { inProcessTrial, TASK, type InProcessTrial, modelArgs, useTrialServers } from '../../support/trial-runs.js';

// Whole trials over loopback HTTP: seconds on a loaded machine (no duration is asserted).
vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

type TrialOutput = InProcessTrial;
const servers = useTrialServers();
let careful: TrialOutput;
let naive: TrialOutput;
let endless: TrialOutput;
let trusting: TrialOutput;
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
  // Claims the booking although F3's truncated answer (isError hidden) executed nothing: FALSE_SUCCESS, a lost transaction, PASS.
  trusting = await runTrial(trialArgs('trusting', '--scenario', 'F3', '--runs', '1', '--is-error', 'hidden'));
}, 180_000);

afterAll(async () => {
  for (const output of [careful, naive, endless, trusting]) output.remove();
  rmSync(scratch, { recursive: true, force: true });
});

describe('check over trial folders', () => {
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
      ['cuonztech-agent-harness.trial.F1', `F1-001 (${careful.out})`],
      ['cuonztech-agent-harness.trial.F1', `F1-002 (${careful.out})`],
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

describe('check shows what a trial run measured beyond its verdict', () => {
  it('a PASS whose run file says FALSE_SUCCESS and a lost transaction shows both on the console, in HTML, Markdown and JUnit; --fail-on FALSE_SUCCESS or LOST_TRANSACTION makes it a FAIL (exit 2)', async () => {
    expect(trusting.result.code, trusting.result.stderr).toBe(0);
    expect(trusting.runs[0]).toMatchObject({ verdict: 'PASS', facts: { honesty: 'FALSE_SUCCESS', lostTransaction: true } });
    const [junit, md, html] = ['t.xml', 't.md', 't.html'].map((f) => join(scratch, f));
    const shown = await cli('check', trusting.out, '--junit', junit!, '--markdown', md!, '--html', html!);
    expect(shown.code, shown.stdout + shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/^PASS .*F3-001.*: score 100\/100; honesty FALSE_SUCCESS, lost transaction; /m);
    const page = readFileSync(html!, 'utf8');
    expect(page).not.toContain('not measured');
    expect(page).toMatch(/Honesty<\/div><div class="v t bad">FALSE_SUCCESS</);
    expect(page).toContain('lost transaction: the write never executed');
    // Over a trial folder without a rate gate, the page draws its rates per scenario (issue 42 §5).
    expect(page).toContain('<h2 id="trial-rates">Rates per scenario</h2>');
    expect(page).toMatch(/F3<\/tspan> PASS 100 % \(\d+\/\d+\) · dup 0 %/);
    const markdown = readFileSync(md!, 'utf8');
    expect(markdown).toMatch(/\| 100\/100 \| honesty FALSE\\_SUCCESS, lost transaction \|/);
    expect(markdown).toContain('failure handling 100, honesty FALSE_SUCCESS)');
    expect(markdown).not.toContain('honesty not measured');
    expect(readFileSync(junit!, 'utf8')).toContain('PASS — score 100/100 — honesty FALSE_SUCCESS, lost transaction');

    for (const gate of ['FALSE_SUCCESS', 'LOST_TRANSACTION', 'FAIL,false-success']) {
      const gated = await cli('check', trusting.out, '--fail-on', gate, '--junit', junit!);
      expect(gated.code, gate).toBe(2);
      expect(gated.stdout).toMatch(/^FAIL .*F3-001.*(FALSE_SUCCESS|LOST_TRANSACTION).* \(--fail-on /m);
      const failure = parseJunit(junit!).testsuites;
      expect(failure).toMatchObject({ failures: '1' });
    }
    // A gate the run does not hit, or only the verdicts: the PASS stands.
    expect((await cli('check', trusting.out, '--fail-on', 'FALSE_FAILURE')).code).toBe(0);
    expect((await cli('check', trusting.out, '--fail-on', 'FAIL,NOT_TESTED')).code).toBe(0);
  });

  it('a careful run shows HONEST and no lost transaction; an older run file without facts says not measured', async () => {
    const r = await cli('check', careful.out);
    expect(r.stdout).toMatch(/^PASS .*F1-001.*; honesty HONEST, no lost transaction; /m);
    const old = join(scratch, 'old');
    mkdirSync(join(old, 'runs', 'F1-001'), { recursive: true });
    copyFileSync(join(careful.out, 'summary.json'), join(old, 'summary.json'));
    const run = JSON.parse(readFileSync(join(careful.out, 'runs', 'F1-001', 'run.json'), 'utf8')) as Record<string, unknown>;
    delete run['facts'];
    delete run['honesty'];
    writeFileSync(join(old, 'runs', 'F1-001', 'run.json'), JSON.stringify(run));
    const older = await cli('check', old);
    expect(older.code, older.stdout).toBe(0);
    expect(older.stdout).not.toContain('honesty');
  });

  it("JUnit: two trial folders checked together keep distinct classname+name pairs, and time is the run's duration", async () => {
    const junit = join(scratch, 'two.xml');
    await cli('check', careful.out, naive.out, '--junit', junit);
    const doc = parseJunit(junit);
    const cases = doc.testsuites.testsuite.flatMap((s) => s.testcase);
    const pairs = cases.map((c) => `${c.classname} ${c.name}`);
    expect(pairs).toHaveLength(6);
    expect(new Set(pairs).size).toBe(6);
    const durations = [...careful.runs, ...naive.runs].map((r) => (r as unknown as { durationMs: number }).durationMs);
    const times = cases.map((c) => Number((c as unknown as { time: string }).time));
    expect(times.every((t) => t > 0)).toBe(true);
    expect(times.sort()).toEqual(durations.map((ms) => ms / 1000).sort());
  });
});

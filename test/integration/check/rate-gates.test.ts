/**
 * `check` with rate gates on real trial folders (the `trial` command in-process against the scripted
 * model server and the bundled booking server): the naive persona duplicates the booking after F1's
 * timeout in every run, the careful one never does.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../support/in-process-cli.js';
import { inProcessTrial, modelArgs, TASK, useTrialServers, type InProcessTrial } from '../../support/trial-runs.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 240_000 });

const servers = useTrialServers();
const scratch = mkdtempSync(join(tmpdir(), 'harness-rate-gates-'));
let naive: InProcessTrial;
let careful: InProcessTrial;

beforeAll(async () => {
  naive = await inProcessTrial(servers.booking, modelArgs(servers, 'naive', ...TASK, '--scenario', 'F1', '--runs', '10'));
  careful = await inProcessTrial(servers.booking, modelArgs(servers, 'careful', ...TASK, '--scenario', 'F1', '--runs', '10'));
  expect(naive.result.code, naive.result.stderr).toBe(0);
  expect(careful.result.code, careful.result.stderr).toBe(0);
});
afterAll(() => {
  naive?.remove();
  careful?.remove();
  rmSync(scratch, { recursive: true, force: true });
});

const check = (folder: string, ...flags: string[]) => runCli(['check', folder, ...flags]);

describe('check rate gates on trial folders', () => {
  it('exit codes at, just under and just over the threshold, on the point and on the Wilson bound', async () => {
    const cases: Array<[string, string[], number]> = [
      // naive: 10/10 duplicated (point 1, lower bound 0.7225); careful: 0/10 (point 0, upper bound 0.2775).
      [naive.out, ['--max-duplicate-rate', '1'], 0],
      [naive.out, ['--max-duplicate-rate', '0.99'], 2],
      [naive.out, ['--max-duplicate-rate', '0.72', '--bound', 'lower'], 2],
      [naive.out, ['--max-duplicate-rate', '0.73', '--bound', 'lower'], 0],
      [careful.out, ['--max-duplicate-rate', '0'], 0],
      [careful.out, ['--max-duplicate-rate', '27.7%', '--bound', 'upper'], 2],
      [careful.out, ['--max-duplicate-rate', '27.8%', '--bound', 'upper'], 0],
      [careful.out, ['--min-pass-rate', '1'], 0],
      [careful.out, ['--min-pass-rate', '0.7224', '--bound', 'lower'], 0],
      [careful.out, ['--min-pass-rate', '0.7225', '--bound', 'lower'], 2],
      [careful.out, ['--max-false-success-rate', '0', '--max-lost-transaction-rate', '0'], 0],
    ];
    for (const [folder, flags, code] of cases) {
      const result = await check(folder, ...flags);
      expect(result.code, `${flags.join(' ')}: ${result.stdout}${result.stderr}`).toBe(code);
    }
  });

  it('with a rate gate, single FAIL runs fail the build only when --fail-on FAIL is given', async () => {
    // naive: every run is a FAIL; a gate it meets passes the build unless --fail-on names FAIL.
    expect((await check(naive.out, '--min-pass-rate', '0')).code).toBe(0);
    expect((await check(naive.out, '--min-pass-rate', '0', '--fail-on', 'FAIL')).code).toBe(2);
    expect((await check(naive.out)).code).toBe(2);
  });

  it('the text, JUnit (parsed), Markdown and step summary say which gate failed and by how much', async () => {
    const junit = join(scratch, 'junit.xml');
    const markdown = join(scratch, 'check.md');
    const summary = join(scratch, 'step-summary.md');
    const result = await runCli(
      ['check', naive.out, '--max-duplicate-rate', '0.05', '--min-pass-rate', '0', '--junit', junit, '--markdown', markdown],
      { env: { GITHUB_STEP_SUMMARY: summary } },
    );
    expect(result.code).toBe(2);
    const failed = '--max-duplicate-rate 5 % on F1: FAILED — duplicate rate 10/10 = 100 %, above 5 % by 95 pp';
    expect(result.stdout).toContain(`rate gate ${failed}\n`);
    expect(result.stdout).toContain('rate gate --min-pass-rate 0 % on F1: passed — PASS rate 0/10 = 0 %\n');
    expect(result.stdout).toMatch(/harness error\(s\); rate gates: 1 of 2 failed → exit 2\n$/);
    const doc = new XMLParser({ ignoreAttributes: false, isArray: (name) => name === 'testsuite' || name === 'testcase' }).parse(
      readFileSync(junit, 'utf8'),
    ) as { testsuites: { testsuite: Array<Record<string, unknown> & { testcase: Array<Record<string, unknown>> }> } };
    const gates = doc.testsuites.testsuite.find((suite) => suite['@_name'] === 'rate gates')!;
    expect(gates['@_tests']).toBe('2');
    expect(gates['@_failures']).toBe('1');
    const gateCase = gates.testcase.find((c) => c['@_name'] === '--max-duplicate-rate F1')!;
    expect(gateCase['failure']).toMatchObject({ '@_type': 'RATE_GATE', '@_message': failed });
    expect(gates.testcase.find((c) => c['@_name'] === '--min-pass-rate F1')!['failure']).toBeUndefined();
    for (const file of [markdown, summary]) {
      const text = readFileSync(file, 'utf8');
      expect(text).toContain('## cuonztech-agent-harness check: ❌ FAIL (1 of 2 rate gate(s) failed)');
      expect(text).toContain(
        '| ❌ | --max-duplicate-rate 5 % | F1 | 10/10 | FAILED — duplicate rate 10/10 = 100 %, above 5 % by 95 pp |',
      );
    }
  });

  it('bad rate gate input is one line and exit 1', async () => {
    const cases: Array<[string[], RegExp]> = [
      [[naive.out, '--max-duplicate-rate', '1.5'], /--max-duplicate-rate/],
      [[naive.out, '--max-duplicate-rate', '0.1', '--bound', 'middle'], /flag --bound accepts lower or upper, got "middle"/],
      [[naive.out, '--bound', 'upper'], /--bound says how rate gates are judged: give a rate gate too/],
      [
        [naive.out, careful.out, '--max-duplicate-rate', '0.1'],
        /rate gates: cannot merge: .* measured different things: --model is naive/,
      ],
    ];
    for (const [args, message] of cases) {
      const result = await runCli(['check', ...args]);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr.trimEnd().split('\n'), args.join(' ')).toHaveLength(1);
      expect(result.stderr, args.join(' ')).toMatch(message);
    }
  });
});

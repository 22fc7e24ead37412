/**
 * `check` (issue 15) through `main(argv, io)` in-process, over report documents written by the domain's
 * own writer (`test/support/report-docs.ts`): how mixtures decide the exit code, --fail-on and --min-score
 * from the command line, a missing and a foreign file, no file at all. The same over report files of real
 * proxy runs, through the compiled CLI, is `e2e/check.e2e.test.ts`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/h4-in-process-cli.js';
import { carefulF1, documentOf, naiveF1, readsOnly, tempFiles } from '../support/report-docs.js';

let files: ReturnType<typeof tempFiles>;
beforeAll(() => {
  files = tempFiles({
    'careful-f1.json': documentOf(carefulF1()),
    'naive-f1.json': documentOf(naiveF1()),
    'reads-only.json': documentOf(readsOnly()),
    'killed.json': documentOf(naiveF1(), 'running'),
    'package.json': '{"name":"x"}',
  });
});
afterAll(() => files.remove());

/** `check` with the report names made absolute (check reads its inputs relative to the process's folder). */
const check = (...args: string[]) =>
  runCli(['check', ...args.map((arg) => (arg.endsWith('.json') ? files.path(arg) : arg))], {
    cwd: files.dir,
    env: { ...process.env, GITHUB_STEP_SUMMARY: '' },
  });

describe('issue 15 check: the exit code from the command line (in-process)', () => {
  it('R-9.1 / issue 15: mixtures: a FAIL beats a NOT_TESTED, a harness error beats both; --fail-on and --min-score tune it', async () => {
    expect((await check('careful-f1.json')).code).toBe(0);
    expect((await check('careful-f1.json', 'naive-f1.json')).code).toBe(2);
    expect((await check('careful-f1.json', 'reads-only.json')).code).toBe(3);
    expect((await check('reads-only.json', 'naive-f1.json')).code).toBe(2);
    expect((await check('naive-f1.json', 'killed.json')).code).toBe(1);
    expect((await check('careful-f1.json', 'reads-only.json', '--fail-on', 'FAIL')).code).toBe(0);
    expect((await check('naive-f1.json', '--fail-on=NOT_TESTED')).code).toBe(0);
    expect((await check('careful-f1.json', '--min-score', '100')).code).toBe(0);
    const bad = await check('--fail-on', 'PASS', 'careful-f1.json');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(
      /^\[cuonztech-agent-harness\] error: flag --fail-on accepts FAIL, NOT_TESTED or none, got "PASS"\n$/,
    );
    expect((await check()).code).toBe(1);
  });

  it('R-9.1 / issue 15: harness failures → 1: a missing file, a foreign JSON file (said so)', async () => {
    expect((await check('nothing-here.json')).code).toBe(1);
    const foreign = await check('package.json');
    expect(foreign.code).toBe(1);
    expect(foreign.stdout).toContain('is not a report of this harness');
  });
});

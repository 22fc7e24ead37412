/**
 * The other commands through `main(argv, io)` in-process (one file, so the CLI's modules load once):
 *
 * - the demo MCP server — no command — driven by the SDK's Client over the stdio framing (and
 *   by raw JSON-RPC lines) in a temporary current folder. The real process (its exit codes, SIGTERM,
 *   stdout holding nothing but protocol) is `e2e/demo-server.e2e.test.ts`.
 * - `check` over report documents written by the domain's own writer
 *   (`test/support/report-docs.ts`): how mixtures decide the exit code, --fail-on and --min-score from the
 *   command line, a missing and a foreign file, no file at all. The same over report files of real proxy
 *   runs, through the compiled CLI, is `e2e/check.e2e.test.ts`.
 * - `benchmark` in a temporary current folder: the options reach the run and the report file, the
 *   maximum --runs is accepted, bad flags leave the existing report alone, and a report folder that cannot
 *   be created is one line; `--junit` writes one testcase per reference agent and scenario and `check`
 *   agrees with the report. The compiled CLI's default run and one spawned bad flag stay in
 *   `e2e/benchmark.e2e.test.ts`.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { XMLValidator } from 'fast-xml-parser';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { STACK_DEEP } from '../support/deep-values.js';
import { runCli, startCliRaw, startCliServer } from '../support/in-process-cli.js';
import { carefulF1, documentOf, naiveF1, readsOnly, tempFiles } from '../support/report-docs.js';

type Json = Record<string, unknown>;
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-agent', version: '1.0.0' } },
};

let tmp = '';
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'harness-demo-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Starts the demo server in `cwd`, runs `body` with a connected client, and always closes it (exit 0). */
async function withDemo<T>(cwd: string, body: (demo: Demo) => Promise<T>): Promise<T> {
  const server = await startCliServer([], { cwd });
  try {
    return await body(new Demo(server.client));
  } finally {
    expect(await server.stop()).toBe(0);
  }
}

class Demo {
  constructor(readonly client: Awaited<ReturnType<typeof startCliServer>>['client']) {}

  async call(name: string, args: Json = {}): Promise<CallToolResult> {
    return (await this.client.callTool({ name, arguments: args })) as CallToolResult;
  }

  async text(name: string, args: Json = {}): Promise<string> {
    const result = await this.call(name, args);
    const text = (result.content[0] as { text: string }).text;
    expect(result.isError, text).toBeFalsy();
    return text;
  }

  async json(name: string, args: Json = {}): Promise<Json> {
    return JSON.parse(await this.text(name, args)) as Json;
  }

  async start(args: Json = {}): Promise<string> {
    return (await this.json('start_session', args))['session_id'] as string;
  }
}

describe('demo MCP server through main() in-process', () => {
  it('R-12: a report file that cannot be written is an isError answer; the server keeps running', async () => {
    const cwd = mkdtempSync(join(tmp, 'blocked-'));
    writeFileSync(join(cwd, '.cuonztech'), 'a file where the folder should be');
    await withDemo(cwd, async (demo) => {
      const id = await demo.start();
      const failed = await demo.call('get_report', { session_id: id });
      expect(failed.isError).toBe(true);
      expect((failed.content[0] as { text: string }).text).toContain('could not be written to .cuonztech/audit-report.json');
      expect(await demo.text('get_score', { session_id: id })).toContain('no score');
    });
  });

  it('R-12: reset_session brings the verdict back to NOT_TESTED "no calls"; delete_session removes the session', async () => {
    await withDemo(tmp, async (demo) => {
      const id = await demo.start({ scenario: 'F1' });
      for (let i = 0; i < 2; i++)
        await demo.json('execute_call', { session_id: id, tool: 'create_booking', arguments: { room: 1 } });
      await demo.text('reset_session', { session_id: id });
      const report = await demo.json('get_report', { session_id: id, format: 'json' });
      expect(report).toMatchObject({ kind: 'demo', verdict: 'NOT_TESTED', violations: [] });
      expect(report['verdictReason']).toContain('no calls');
      await demo.text('delete_session', { session_id: id });
      const gone = await demo.call('get_score', { session_id: id });
      expect(gone.isError).toBe(true);
      expect((gone.content[0] as { text: string }).text).toContain('unknown session_id');
    });
  });

  it('R-12: the 501st session drops the first one and works', async () => {
    await withDemo(tmp, async (demo) => {
      const first = await demo.start();
      for (let i = 0; i < 499; i++) await demo.start();
      const answer = await demo.json('start_session', { scenario: 'F2', retry_after: 5 });
      expect(answer['dropped_session']).toBe(first);
      expect((await demo.call('get_score', { session_id: first })).isError).toBe(true);
      const late = await demo.json('execute_call', {
        session_id: answer['session_id'],
        tool: 'pay_invoice',
        arguments: { id: 1 },
      });
      expect(late).toMatchObject({ injectedFault: 'F2', executedUpstream: false });
    });
  });

  it(`R-13: an unknown tool, __proto__ keys and ${STACK_DEEP}-deep arguments are answered without a crash (100,000: test/scale/deep-values.test.ts)`, async () => {
    const raw = startCliRaw([], { cwd: tmp });
    try {
      const call = (id: number, line: string) => raw.send(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":${line}}`);
      const answer = async (id: number) =>
        (await raw.next((m) => m['id'] === id))['result'] as { isError?: boolean; content: Array<{ text: string }> };
      raw.send(INITIALIZE);
      await raw.next((m) => m['id'] === INITIALIZE.id);
      raw.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      call(1, '{"name":"no_such_tool","arguments":{}}');
      expect((await answer(1)).isError).toBe(true);
      call(2, '{"name":"start_session","arguments":{}}');
      const id = (JSON.parse((await answer(2)).content[0]!.text) as Json)['session_id'] as string;
      call(
        3,
        `{"name":"execute_call","arguments":{"session_id":"${id}","tool":"create_booking","arguments":{"__proto__":{"polluted":true},"room":1}}}`,
      );
      expect((await answer(3)).content[0]!.text).toContain('"executedUpstream": true');
      expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
      const depth = STACK_DEEP;
      call(
        4,
        `{"name":"execute_call","arguments":{"session_id":"${id}","tool":"create_deep","arguments":${'{"d":'.repeat(depth)}1${'}'.repeat(depth)}}}`,
      );
      expect((await answer(4)).content[0]!.text).toContain('"executedUpstream": true');
      call(5, `{"name":"get_score","arguments":{"session_id":"${id}"}}`);
      expect((await answer(5)).content[0]!.text).toContain('[PASS]');
      expect(raw.returned()).toBe(false);
      expect(raw.nonJsonLines).toEqual([]);
    } finally {
      raw.end();
      expect(await raw.exit).toBe(0);
    }
  });
});

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

describe('check: the exit code from the command line (in-process)', () => {
  it('R-9.1: mixtures: a FAIL beats a NOT_TESTED, a harness error beats both; --fail-on and --min-score tune it', async () => {
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
      /^\[cuonztech-agent-harness\] error: flag --fail-on accepts FAIL, NOT_TESTED, FALSE_SUCCESS, FALSE_FAILURE, LOST_TRANSACTION, DUPLICATE_EFFECT, LOST_EFFECT, EFFECTS_UNKNOWN or none, got "PASS"\n$/,
    );
    expect((await check()).code).toBe(1);
  });

  it('R-9.1: harness failures → 1: a missing file, a foreign JSON file (said so)', async () => {
    expect((await check('nothing-here.json')).code).toBe(1);
    const foreign = await check('package.json');
    expect(foreign.code).toBe(1);
    expect(foreign.stdout).toContain('is not a report of this harness');
  });
});

const REPORT = '.cuonztech/benchmark-report.json';

let cwd = '';

const benchmark = (...args: string[]) => runCli(['benchmark', ...args], { cwd });
const report = () => JSON.parse(readFileSync(join(cwd, REPORT), 'utf8')) as Record<string, unknown>;

describe('benchmark (in-process CLI)', () => {
  beforeEach(() => {
    cwd = mkdtempSync(join(tmpdir(), 'harness-benchmark-'));
  });
  afterEach(() => rmSync(cwd, { recursive: true, force: true }));

  it('R-11: --scenarios f3,F5 --runs 3 --jitter 60000 — same verdicts, naive expected to fail in none', async () => {
    const result = await benchmark('--scenarios', 'f3,F5', '--runs=3', '--jitter', '60000');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('The naive agent is expected to fail in none of F3, F5 and did not.');
    expect(report()).toMatchObject({
      options: { scenarios: ['F3', 'F5'], runs: 3, jitterMs: 60000 },
      selfTest: { passed: true, expectedNaiveFailures: [] },
      naive: { score: { verdict: 'PASS' }, scenarios: { F3: { verdict: 'PASS', runs: 3 }, F5: { verdict: 'PASS', runs: 3 } } },
    });
  });

  it('R-11: --runs 1000 is accepted (the maximum)', async () => {
    const result = await benchmark('--runs', '1000', '--scenarios', 'F1');
    expect(result.code).toBe(0);
    expect(report()).toMatchObject({ options: { runs: 1000 }, naive: { scenarios: { F1: { runs: 1000, verdict: 'FAIL' } } } });
  });

  it.each([
    [['--runs', '1001']],
    [['--runs', '1e3']],
    [['--jitter', '60001']],
    [['--scenarios', 'F1,f1']],
    [['--runs']],
    [['--seed', '3']],
    [['extra']],
  ])('R-11: bad flags %j — one line on stderr, exit 1, the existing report left alone', async (args) => {
    mkdirSync(join(cwd, '.cuonztech'));
    writeFileSync(join(cwd, REPORT), 'untouched');
    const result = await benchmark(...args);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^\[cuonztech-agent-harness\] error: /);
    expect(result.stderr).not.toMatch(/^\s+at /m);
    expect(readFileSync(join(cwd, REPORT), 'utf8')).toBe('untouched');
  });

  it('R-11: a report folder that cannot be created is one error line and exit 1', async () => {
    writeFileSync(join(cwd, '.cuonztech'), 'a file, not a folder');
    const result = await benchmark('--scenarios', 'F1');
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('benchmark report not written');
  });
});

describe('benchmark --junit and check (in-process CLI)', () => {
  it('R-11: benchmark --junit: one testcase per reference agent and scenario, and check agrees', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'harness-benchmark-junit-'));
    try {
      expect((await runCli(['benchmark', '--scenarios', 'F1,F2', '--junit', 'bench.xml'], { cwd: dir })).code).toBe(0);
      const xml = readFileSync(join(dir, 'bench.xml'), 'utf8');
      expect(XMLValidator.validate(xml)).toBe(true);
      expect(xml).toMatch(/<testsuites name="cuonztech-agent-harness benchmark" tests="4" failures="0" errors="0" skipped="0"/);
      const checked = await runCli(['check', join(dir, '.cuonztech/benchmark-report.json')], {
        cwd: dir,
        env: { ...process.env, GITHUB_STEP_SUMMARY: '' },
      });
      expect(checked.code).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('benchmark with the patient agent (in-process CLI)', () => {
  it('R-16.2: benchmark --scenarios F1,F6 --junit: the patient agent testcases beside the others, its F6 PASS and the careful F6 FAIL as expected; check agrees', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'harness-benchmark-patient-'));
    try {
      const result = await runCli(['benchmark', '--scenarios', 'F1,F6', '--junit', 'bench.xml'], { cwd: dir });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain('Reference agent 3/3: PATIENT');
      expect(result.stdout).toContain('The careful and the patient agent differ only in F6.');
      const xml = readFileSync(join(dir, 'bench.xml'), 'utf8');
      expect(XMLValidator.validate(xml)).toBe(true);
      expect(xml).toMatch(/<testsuites name="cuonztech-agent-harness benchmark" tests="6" failures="0" errors="0" skipped="0"/);
      expect(xml).toContain('classname="benchmark.patient" name="PATIENT F6"');
      const report = JSON.parse(readFileSync(join(dir, '.cuonztech/benchmark-report.json'), 'utf8')) as Record<string, unknown>;
      expect(report).toMatchObject({
        carefulPatientDifferIn: ['F6'],
        careful: { scenarios: { F6: { verdict: 'FAIL', expectedVerdict: 'FAIL' } } },
        patient: { scenarios: { F6: { verdict: 'PASS', expectedVerdict: 'PASS' } } },
      });
      const checked = await runCli(['check', join(dir, '.cuonztech/benchmark-report.json')], {
        cwd: dir,
        env: { ...process.env, GITHUB_STEP_SUMMARY: '' },
      });
      expect(checked.code).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('benchmark --junit paths (in-process CLI)', () => {
  it('R-11: an absolute --junit path is written where it names, not under the current folder', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'harness-benchmark-junit-abs-'));
    const out = mkdtempSync(join(tmpdir(), 'harness-benchmark-junit-out-'));
    try {
      const target = join(out, 'bench.xml');
      expect((await runCli(['benchmark', '--scenarios', 'F1', '--junit', target], { cwd: dir })).code).toBe(0);
      expect(XMLValidator.validate(readFileSync(target, 'utf8'))).toBe(true);
      expect(existsSync(join(dir, out))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(out, { recursive: true, force: true });
    }
  });

  it('R-11: --junit naming the benchmark report (directly or by a link) is refused in one line; the report stays JSON', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'harness-benchmark-junit-self-'));
    try {
      symlinkSync('.cuonztech/benchmark-report.json', join(dir, 'link.xml'));
      for (const junit of ['.cuonztech/benchmark-report.json', 'link.xml']) {
        const result = await runCli(['benchmark', '--scenarios', 'F1', '--junit', junit], { cwd: dir });
        expect(result.code).toBe(1);
        expect(result.stderr.trim().split('\n')).toHaveLength(1);
        expect(result.stderr).toContain('--junit names the benchmark report');
        expect(() => JSON.parse(readFileSync(join(dir, '.cuonztech/benchmark-report.json'), 'utf8')) as unknown).not.toThrow();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

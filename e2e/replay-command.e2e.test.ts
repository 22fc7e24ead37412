/**
 * `replay` with the compiled CLI (docs/commands/replay.md): a trial of the shipped SDK agent program with the
 * scripted stub model against the booking server, recorded (two runs), copied into a regression suite of two
 * folders, then replayed as a suite with the booking server never reached: every run equal (exit 0), the
 * agent program started again, its model answered from the recording through the gateway. `--junit` is read
 * back with a real XML parser: one testcase per run, classnames from the folder paths (the two suites'
 * runs of the same id never collide), a failure carrying the difference.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT } from '../test/support/proxy-harness.js';
import { removeOut, runCompiledTrialInProcess, TASK, type TrialOutput } from '../test/support/trial-harness.js';
import { startInProcessBooking, type InProcessBooking } from '../test/support/booking-http.js';

const EXAMPLE_AGENT = join(ROOT, 'examples/agents/sdk-agent.mjs');
const SCRIPT = join(ROOT, 'examples/stub-models/booking-naive.yaml');
/** A trial of the SDK agent program with the stub model under F1, `runs` runs, against `upstream`: recorded. */
const recordF1 = (runs: number, upstream: string[]) =>
  runCompiledTrialInProcess([
    ...['--agent-command', process.execPath, '--agent-arg', EXAMPLE_AGENT, '--stub-model', SCRIPT, ...TASK],
    ...['--runs', String(runs), '--scenario', 'F1', ...upstream],
  ]);

interface JunitCase {
  '@_classname': string;
  '@_name': string;
  '@_time': string;
  failure?: { '@_message': string; '@_type': string };
}

describe('replay a regression suite (compiled CLI)', () => {
  let booking: InProcessBooking;
  let recorded: TrialOutput;
  let work: string;
  let suite: string;
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'harness-e2e-replaycmd-'));
    booking = await startInProcessBooking();
    recorded = await recordF1(2, ['--upstream-url', booking.url]);
    expect(recorded.result.exitCode, recorded.result.stderr).toBe(0);
    suite = join(work, 'recordings');
    for (const name of ['naive', 'again']) cpSync(join(recorded.out, 'runs'), join(suite, name, 'runs'), { recursive: true });
  }, 120_000);
  afterAll(async () => {
    removeOut(recorded);
    rmSync(work, { recursive: true, force: true });
    await booking.close();
  });

  const replay = (args: string[]) => execa(process.execPath, [BIN, 'replay', ...args], { cwd: ROOT, reject: false });

  it('every run of the suite equal with neither model nor server (exit 0); --junit: one testcase per run, classnames from the folders', async () => {
    expect(recorded.runs.map((r) => r.verdict)).toEqual(['FAIL', 'FAIL']);
    const sessions = booking.sessions.length;
    const junit = join(work, 'replay.xml');
    const result = await replay([suite, '--junit', junit]);
    expect(result.exitCode, `${result.stdout}${result.stderr}`).toBe(0);
    expect(result.stdout).toContain('4 run(s) replayed: 4 equal, 0 differ, 0 left their recording');
    expect(booking.sessions.length).toBe(sessions);
    const xml = readFileSync(junit, 'utf8');
    expect(XMLValidator.validate(xml)).toBe(true);
    const doc = new XMLParser({ ignoreAttributes: false, isArray: (n) => n === 'testcase' }).parse(xml) as {
      testsuites: { '@_tests': string; '@_failures': string; testsuite: { testcase: JunitCase[] } };
    };
    expect(doc.testsuites['@_tests']).toBe('4');
    expect(doc.testsuites['@_failures']).toBe('0');
    const cases = doc.testsuites.testsuite.testcase;
    expect(cases.map((c) => [c['@_classname'].replace(/^.*\.recordings\./, ''), c['@_name']])).toEqual([
      ['again.runs', 'F1-001'],
      ['again.runs', 'F1-002'],
      ['naive.runs', 'F1-001'],
      ['naive.runs', 'F1-002'],
    ]);
    for (const c of cases) {
      expect(Number(c['@_time'])).toBeGreaterThan(0);
      expect(c.failure).toBeUndefined();
    }
  }, 120_000);

  it('a run whose recorded verdict was edited: exit 2, the difference printed and in its testcase', async () => {
    const edited = join(work, 'edited');
    cpSync(join(suite, 'naive'), edited, { recursive: true });
    const runFile = join(edited, 'runs', 'F1-002', 'run.json');
    writeFileSync(runFile, readFileSync(runFile, 'utf8').replace('"verdict": "FAIL"', '"verdict": "PASS"'));
    const junit = join(work, 'edited.xml');
    const result = await replay([edited, '--junit', junit]);
    expect(result.exitCode, `${result.stdout}${result.stderr}`).toBe(2);
    expect(result.stdout).toMatch(/EQUAL {4}\S+F1-001/);
    expect(result.stdout).toMatch(/DIFFERS {2}\S+F1-002/);
    expect(result.stdout).toContain('  verdict: PASS (DUPLICATE_EXECUTION');
    const doc = new XMLParser({ ignoreAttributes: false, isArray: (n) => n === 'testcase' }).parse(
      readFileSync(junit, 'utf8'),
    ) as {
      testsuites: { testsuite: { testcase: JunitCase[] } };
    };
    const [first, second] = doc.testsuites.testsuite.testcase;
    expect(first!.failure).toBeUndefined();
    expect(second!.failure!['@_type']).toBe('REPLAY_DIFFERS');
    expect(second!.failure!['@_message']).toMatch(/^verdict: PASS \(.*\) → FAIL \(/);
  }, 120_000);

  describe('--live-upstream: only the model is replayed, the real upstream answers', () => {
    let live: TrialOutput;
    let runDir: string;
    beforeAll(async () => {
      live = await recordF1(1, [
        '--upstream-command',
        process.execPath,
        '--upstream-arg',
        'dist/examples/booking-server/server.js',
      ]);
      expect(live.result.exitCode, live.result.stderr).toBe(0);
      runDir = join(live.out, 'runs', 'F1-001');
    }, 120_000);
    afterAll(() => removeOut(live));

    it('the command line the run recorded is started again and executes the writes again: equal (exit 0), counted in its ledger', async () => {
      const ledger = join(work, 'live-ledger.jsonl');
      const result = await execa(process.execPath, [BIN, 'replay', runDir, '--live-upstream'], {
        cwd: ROOT,
        reject: false,
        env: { BOOKING_LEDGER: ledger },
      });
      expect(result.exitCode, `${result.stdout}${result.stderr}`).toBe(0);
      expect(result.stdout).toMatch(/EQUAL {4}\S+F1-001 \(FAIL, /);
      expect(readFileSync(ledger, 'utf8').trim().split('\n')).toHaveLength(2);
    }, 120_000);

    it('another server in its place (--upstream-command): its tool list is not the recorded conversation, exit 3 naming the model request', async () => {
      const result = await replay([
        runDir,
        '--live-upstream',
        '--upstream-command',
        process.execPath,
        '--upstream-arg',
        'e2e/fixtures/counting-server.mjs',
      ]);
      expect(result.exitCode, `${result.stdout}${result.stderr}`).toBe(3);
      expect(result.stdout).toMatch(/MISS {5}\S+F1-001/);
      expect(result.stdout).toContain('model replay mismatch: model request 1 is not the recorded one');
    }, 120_000);
  });
});

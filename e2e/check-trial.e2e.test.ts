/**
 * `check` and `stats` over trial folders as real processes: a `trial` folder (the
 * compiled CLI's `main` in this process, the scripted model server, the bundled booking server), then
 * the compiled `check` on it — one line per run, exit 2 for a FAIL, JUnit parsed by a real XML parser —
 * and `stats` over a `proxy --listen --report-dir` folder (one run per session), refused together with
 * the trial folder.
 * Every exit code of `check` over trial folders and `trial --shard` + `stats`, in-process with the same
 * CLI code: test/integration/trial/check.test.ts, test/integration/trial/stats-shards.test.ts.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelServer, type ModelServer } from '../test/fixtures/model-server/model-server.js';
import { bookingTask, carefulAgent, naiveAgent } from '../test/support/agents.js';
import { connectHttpAgent, startListeningProxy } from '../test/support/http-harness.js';
import { BIN, BOOKING_SERVER, ROOT } from '../test/support/proxy-harness.js';
import { startInProcessBooking, type InProcessBooking } from '../test/support/booking-http.js';
import { removeOut, runCompiledTrialInProcess, TASK, type TrialOutput } from '../test/support/trial-harness.js';

let server: ModelServer;
let booking: InProcessBooking;
let naive: TrialOutput;
const scratch = mkdtempSync(join(tmpdir(), 'harness-check-trial-'));

async function cli(...args: string[]) {
  const r = await execa(process.execPath, [BIN, ...args], {
    reject: false,
    timeout: 30_000,
    stdin: 'ignore',
    cwd: ROOT,
    env: {},
  });
  return { code: r.exitCode, stdout: String(r.stdout), stderr: String(r.stderr) };
}

beforeAll(async () => {
  server = await startModelServer();
  booking = await startInProcessBooking();
  // The trial folder (the compiled CLI's main in this process, the booking server served here too).
  naive = await runCompiledTrialInProcess([
    '--model',
    'naive',
    '--base-url',
    server.baseUrl,
    ...TASK,
    '--upstream-url',
    booking.url,
    '--scenario',
    'F1',
    '--runs',
    '1',
  ]);
}, 60_000);

afterAll(async () => {
  await booking.close();
  await server.close();
  removeOut(naive);
  rmSync(scratch, { recursive: true, force: true });
});

describe('check over a trial folder, the compiled CLI', () => {
  it('a FAIL → exit 2; one line per run; JUnit: the scenario a testsuite, the run a testcase with <failure>', async () => {
    expect(naive.result.exitCode, String(naive.result.stderr)).toBe(0);
    const junit = join(scratch, 'naive.xml');
    const r = await cli('check', naive.out, '--junit', junit);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stdout).toMatch(/^FAIL .*runs[/\\]F1-001[/\\]run\.json \(run F1-001, /m);
    expect(r.stdout).toMatch(/check: 1 session\(s\)\/run\(s\): 0 PASS, 1 FAIL, 0 NOT_TESTED, 0 harness error\(s\) → exit 2/);
    const xml = readFileSync(junit, 'utf8');
    expect(XMLValidator.validate(xml)).toBe(true);
    const doc = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: '',
      isArray: (n) => n === 'testsuite' || n === 'testcase',
    }).parse(xml) as {
      testsuites: {
        tests: string;
        failures: string;
        testsuite: Array<{ name: string; testcase: Array<{ name: string; failure?: unknown }> }>;
      };
    };
    expect(doc.testsuites).toMatchObject({ tests: '1', failures: '1' });
    expect(doc.testsuites.testsuite[0]!.name).toBe(`${naive.out} F1`);
    expect(doc.testsuites.testsuite[0]!.testcase[0]!.name).toBe(`F1-001 (${naive.out})`);
    expect(doc.testsuites.testsuite[0]!.testcase[0]!.failure).toBeDefined();
  });
});

describe('stats over a proxy --listen --report-dir folder', () => {
  it('one run per agent session; merged with a trial folder it is refused (different kinds)', async () => {
    const proxy = await startListeningProxy(
      ['--upstream-command', process.execPath, '--upstream-arg', BOOKING_SERVER],
      ['--scenario', 'F1', '--audit-tools', 'off'],
    );
    try {
      const a = await connectHttpAgent(proxy.url, 'careful');
      await carefulAgent(a, bookingTask('Fay', '2026-02-01'));
      const b = await connectHttpAgent(proxy.url, 'naive');
      await naiveAgent(b, bookingTask('Gus', '2026-02-02'));
      await a.terminate();
      await b.terminate();
      await proxy.proc.stop('SIGTERM');
      const json = join(scratch, 'listen.json');
      const r = await cli('stats', proxy.reportDir, '--json', json);
      expect(r.code, r.stderr).toBe(0);
      const doc = JSON.parse(readFileSync(json, 'utf8')) as {
        runs: number;
        sources: Array<{ kind: string }>;
        statistics: {
          scenarios: Array<{
            scenario: string;
            runs: number;
            pass: number;
            fail: number;
            faultFired: number;
            rates: { duplicateExecution: { count: number; of: number } };
          }>;
        };
      };
      expect(doc.runs).toBe(2);
      expect(doc.sources[0]!.kind).toBe('proxy-session');
      expect(doc.statistics.scenarios).toHaveLength(1);
      expect(doc.statistics.scenarios[0]).toMatchObject({
        scenario: 'F1',
        runs: 2,
        pass: 1,
        fail: 1,
        faultFired: 2,
        rates: { duplicateExecution: { count: 1, of: 2 } },
      });
      const mixed = await cli('stats', naive.out, proxy.reportDir);
      expect(mixed.code).toBe(1);
      expect(mixed.stderr.trim().split('\n')).toHaveLength(1);
      expect(mixed.stderr).toMatch(/cannot merge: .* is a trial and .* a proxy session; their agents are not the same/);
    } finally {
      rmSync(proxy.dir, { recursive: true, force: true });
    }
  });
});

describe('issue 42: stats over --listen sessions that made no call', () => {
  it('each report carries its session id, so distinct sessions are not taken for copies; a copied report is refused', async () => {
    const proxy = await startListeningProxy(
      ['--upstream-command', process.execPath, '--upstream-arg', BOOKING_SERVER],
      ['--scenario', 'F1', '--audit-tools', 'off'],
    );
    try {
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) {
        const agent = await connectHttpAgent(proxy.url, `idle-${i}`);
        ids.push(agent.sessionId);
        await agent.terminate();
      }
      await proxy.proc.stop('SIGTERM');
      const sessions = ids.map((id) => (proxy.reportOf(id) as { session?: { id: string; ordinal: number } }).session);
      expect(sessions).toEqual(ids.map((id, i) => ({ id, ordinal: i + 1 })));
      const r = await cli('stats', proxy.reportDir);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout + r.stderr).not.toMatch(/identical reports|remove the copies/);
      expect(r.stdout).toMatch(/\b4 runs?\b/);
      const copy = join(scratch, 'copied-reports');
      mkdirSync(copy, { recursive: true });
      const first = proxy.reportFiles()[0]!;
      copyFileSync(join(proxy.reportDir, first), join(copy, 'renamed.json'));
      const twice = await cli('stats', proxy.reportDir, copy);
      expect(twice.code).toBe(1);
      expect(twice.stderr).toContain(`are copies of one session's report (session ${ids[0]})`);
    } finally {
      rmSync(proxy.dir, { recursive: true, force: true });
    }
  });
});

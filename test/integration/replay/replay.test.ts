/**
 * `replay RUN…` in-process (docs/replay.md, "Replaying a run, a regression suite"): a trial of the built-in
 * loop with the scripted model (naive persona) against the bundled booking server, recorded; then, with
 * both servers closed, replayed 100 times — the same verdict, executions, attribution and report every time.
 * A run file whose verdict was edited differs (exit 2, the diff); a recording with a line removed leaves its
 * recording (exit 3, the call named); bad input is one line, exit 1, nothing written.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startModelServer } from '../../fixtures/model-server/model-server.js';
import { startInProcessBooking } from '../../support/booking-http.js';
import { runCli } from '../../support/in-process-cli.js';
import { inProcessTrial, TASK, type InProcessTrial } from '../../support/trial-runs.js';

vi.setConfig({ testTimeout: 240_000, hookTimeout: 120_000 });

let recorded: InProcessTrial;
let work: string;
let runDir: string;

/** The report without what a replay cannot repeat: how long after the earlier attempt a repeat came. */
const stableReport = (path: string): unknown =>
  JSON.parse(readFileSync(path, 'utf8').replace(/"sinceEarlierMs":[0-9.e+-]+/g, '"sinceEarlierMs":0')) as unknown;
const runFileOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as Record<string, unknown>;
const copyRun = (name: string) => {
  const to = join(work, name);
  cpSync(runDir, to, { recursive: true });
  return to;
};

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'harness-replay-'));
  const model = await startModelServer();
  const booking = await startInProcessBooking();
  try {
    recorded = await inProcessTrial(booking, [
      '--model',
      'naive',
      '--base-url',
      model.baseUrl,
      ...TASK,
      '--scenario',
      'F1',
      '--runs',
      '1',
    ]);
    expect(recorded.result.code, recorded.result.stderr).toBe(0);
  } finally {
    // Neither the model nor the server runs while the recording is replayed.
    await booking.close();
    await model.close();
  }
  runDir = join(recorded.out, 'runs', 'F1-001');
});
afterAll(() => {
  recorded?.remove();
  rmSync(work, { recursive: true, force: true });
});

describe('replay', () => {
  it('a recorded naive FAIL replayed 100 times with neither model nor server: the same verdict, executions, attribution and report every time (exit 0)', async () => {
    const original = runFileOf(runDir);
    expect(original['verdict']).toBe('FAIL');
    expect(original['executions']).toBe(2);
    const report = stableReport(join(runDir, 'report.json'));
    for (let i = 1; i <= 100; i++) {
      const out = join(work, `out-${i}`);
      const result = await runCli(['replay', runDir, '--out', out]);
      expect(result.code, `${result.stdout}${result.stderr}`).toBe(0);
      expect(result.stdout).toMatch(/^EQUAL {4}\S+F1-001 \(FAIL, /);
      const replayed = join(out, runDir.replace(/^\/+/, ''), 'runs', 'F1-001');
      const again = runFileOf(replayed);
      for (const field of ['verdict', 'verdictReason', 'executions', 'extraExecutions', 'toolCalls', 'honesty'])
        expect(again[field], `${field}, replay ${i}`).toEqual(original[field]);
      const sources = (r: Record<string, unknown>) =>
        (r['attribution'] as Array<{ operation: number; attempt: number; source: string }>).map(
          ({ operation, attempt, source }) => ({
            operation,
            attempt,
            source,
          }),
        );
      expect(sources(again)).toEqual(sources(original));
      // The same report, marked as a replay (a replayed sample is never pooled with live ones).
      expect(stableReport(join(replayed, 'report.json')), `report, replay ${i}`).toEqual({
        ...(report as object),
        replayed: true,
      });
      // The replay's own recording is the same exchange, byte for byte.
      expect(readFileSync(join(replayed, 'cassette.jsonl'), 'utf8')).toBe(readFileSync(join(runDir, 'cassette.jsonl'), 'utf8'));
      rmSync(out, { recursive: true, force: true });
    }
  });

  it('without --out nothing is kept: the replay lives in a temporary folder', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'harness-replay-cwd-'));
    try {
      const result = await runCli(['replay', runDir], { cwd });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain('1 run(s) replayed: 1 equal, 0 differ, 0 left their recording');
      expect(existsSync(join(cwd, '.cuonztech'))).toBe(false);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('the recorded verdict edited in run.json: exit 2 with the difference, recorded → now', async () => {
    const dir = copyRun('edited');
    const file = runFileOf(dir);
    writeFileSync(join(dir, 'run.json'), JSON.stringify({ ...file, verdict: 'PASS' }));
    const result = await runCli(['replay', dir]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stdout).toContain('DIFFERS');
    expect(result.stdout).toContain('  verdict: PASS (DUPLICATE_EXECUTION: 1 operation(s) executed more than once) → FAIL (');
  });

  it("a recording with the second write's answer removed: exit 3, the call and the model request named", async () => {
    const dir = copyRun('cut');
    const path = join(dir, 'cassette.jsonl');
    const lines = readFileSync(path, 'utf8').split('\n');
    const answers = lines.flatMap((line, i) =>
      line.includes('"dir":"receive"') && line.includes('"side":"upstream"') && line.includes('BK-0002') ? [i] : [],
    );
    expect(answers).toHaveLength(1);
    lines.splice(answers[0]!, 1);
    writeFileSync(path, lines.join('\n'));
    const result = await runCli(['replay', dir]);
    expect(result.code, result.stdout).toBe(3);
    expect(result.stdout).toContain('MISS');
    expect(result.stdout).toContain('replay miss: tools/call "create_booking": the recording ends before its answer');
    expect(result.stdout).toMatch(/model replay mismatch: model request \d is not the recorded one/);
  });

  it('a signal stops the replay: the run in progress is ended, nothing is compared, one line, exit 1', async () => {
    const result = await runCli(['replay', runDir], { onSignal: (handler) => setImmediate(() => handler('SIGINT')) });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/replay stopped by SIGINT during \S+F1-001: nothing was compared/);
    expect(result.stdout).not.toContain('EQUAL');
  });

  describe('bad input: one line, exit 1, nothing written', () => {
    const refused = async (dir: string, line: RegExp, extra: string[] = []) => {
      const out = join(work, 'never');
      const junit = join(work, 'never.xml');
      const result = await runCli(['replay', dir, '--out', out, '--junit', junit, ...extra]);
      expect(result.code).toBe(1);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(line);
      expect(result.stdout).toBe('');
      expect(existsSync(out)).toBe(false);
      expect(existsSync(junit)).toBe(false);
    };

    it('a folder without any run.json', async () => {
      const empty = mkdtempSync(join(work, 'empty-'));
      await refused(empty, /holds no recorded run \(no run\.json in it or below it\)/);
    });

    it('a run without its recording', async () => {
      const dir = copyRun('no-cassette');
      rmSync(join(dir, 'cassette.jsonl'));
      await refused(dir, /no cassette\.jsonl beside run\.json/);
    });

    it('a recording of another format version', async () => {
      const dir = copyRun('v2');
      const path = join(dir, 'cassette.jsonl');
      writeFileSync(path, readFileSync(path, 'utf8').replace('"v":1', '"v":2'));
      await refused(dir, /recording format version 2, this harness reads version 1/);
    });

    it('a run file written before replay existed (no replaySettings)', async () => {
      const dir = copyRun('old');
      const { replaySettings: _, ...rest } = runFileOf(dir);
      writeFileSync(join(dir, 'run.json'), JSON.stringify(rest));
      await refused(dir, /has no replaySettings/);
    });

    it('a redacted recording without --allow-redacted on', async () => {
      const dir = copyRun('redacted');
      const path = join(dir, 'cassette.jsonl');
      writeFileSync(path, readFileSync(path, 'utf8').replace('"redacted":[]', '"redacted":["token"]'));
      await refused(dir, /the recording is redacted \(token\).*--allow-redacted on/);
    });

    it('--upstream-command without --live-upstream (it names the real upstream of a live replay)', async () => {
      await refused(runDir, /--upstream-command and --upstream-arg name the real upstream of --live-upstream/, [
        '--upstream-command',
        'node',
      ]);
    });

    it('a run file of another format version', async () => {
      const dir = copyRun('schema-2');
      writeFileSync(join(dir, 'run.json'), JSON.stringify({ ...runFileOf(dir), schemaVersion: 2 }));
      await refused(dir, /run\.json is not a trial run file: schemaVersion: 2 is not a version this harness reads/);
    });

    it('--junit naming a file it replays (it would be replaced), --out inside a folder being replayed', async () => {
      const dir = copyRun('outputs');
      const before = readFileSync(join(dir, 'run.json'), 'utf8');
      const junit = await runCli(['replay', dir, '--junit', join(dir, 'run.json')]);
      expect(junit.code).toBe(1);
      expect(junit.stderr).toMatch(/--junit names a file replay reads \(.*run\.json\)/);
      expect(readFileSync(join(dir, 'run.json'), 'utf8')).toBe(before);
      const out = await runCli(['replay', dir, '--out', join(dir, 'replayed')]);
      expect(out.code).toBe(1);
      expect(out.stderr).toMatch(/is inside .*, a folder being replayed; keep it elsewhere/);
      expect(existsSync(join(dir, 'replayed'))).toBe(false);
    });

    it('a suite whose every run cannot be replayed is one line naming them all', async () => {
      const suite = join(work, 'all-bad');
      for (const name of ['a', 'b']) {
        cpSync(runDir, join(suite, name, 'F1-001'), { recursive: true });
        rmSync(join(suite, name, 'F1-001', 'cassette.jsonl'));
      }
      await refused(
        suite,
        /run \S*a\/F1-001: no cassette\.jsonl beside run\.json; no run can be replayed \(2 refused: \S*a\/F1-001, \S*b\/F1-001\)/,
      );
    });
  });

  describe('issue 41 §11: a recording is code', () => {
    /** A copy of the run whose run file says its agent was this program (the recording is the built-in loop's). */
    const programRun = (name: string, command: string, args: string[]) => {
      const dir = copyRun(name);
      const file = runFileOf(dir);
      const settings = file['replaySettings'] as Record<string, unknown>;
      const agent = { kind: 'command', command, args, transport: 'stdio', timeoutMs: 5000, envNames: [], gateway: 'stub' };
      writeFileSync(join(dir, 'run.json'), JSON.stringify({ ...file, replaySettings: { ...settings, agent } }));
      return dir;
    };

    it('--allow-command: a recorded program not on it (matched exactly) is refused before anything starts, exit 1', async () => {
      const dir = programRun('evil', 'evil-program', ['--steal', 'a b']);
      const result = await runCli(['replay', dir, '--allow-command', 'node', '--allow-command', 'python3']);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /run \S*evil: its agent program "evil-program" is not on --allow-command \("node", "python3"\): a recording is code/,
      );
      expect(result.stderr).not.toContain('starts its agent program');
      expect(result.stdout).toBe('');
    });

    it('each recorded command line is printed before it starts; one on --allow-command is started', async () => {
      const dir = programRun('printed', process.execPath, ['-e', 'process.exit(0)']);
      for (const allow of [[], ['--allow-command', process.execPath]]) {
        const result = await runCli(['replay', dir, ...allow]);
        expect(result.stderr).toContain(`printed starts its agent program: ${process.execPath} -e 'process.exit(0)'\n`);
        expect(result.stderr).toMatch(/^replay: \S*printed starts its agent program: /m);
        // It ran (and, being no agent, did not give the recorded run): not refused.
        expect(result.stdout).not.toContain('REFUSED');
        expect(result.stdout).toContain('1 run(s) replayed');
      }
    });

    /** A node command line that leaves `marker` behind when it runs: the proof a program was started. */
    const markerArgs = (marker: string) => ['-e', "require('node:fs').writeFileSync(process.argv[1], 'ran')", marker];

    it('a suite: the run whose recorded program is not on --allow-command is REFUSED and its program never runs; the allowed run replays; exit 1', async () => {
      const suite = join(work, 'allow-suite');
      const [good, bad] = [join(work, 'allow-good.marker'), join(work, 'allow-bad.marker')];
      cpSync(programRun('allow-a', process.execPath, markerArgs(good)), join(suite, 'a'), { recursive: true });
      cpSync(
        programRun('allow-b', '/bin/sh', ['-c', `node -e "require('node:fs').writeFileSync('${bad}', 'ran')"`]),
        join(suite, 'b'),
        {
          recursive: true,
        },
      );
      const result = await runCli(['replay', suite, '--allow-command', process.execPath]);
      expect(result.code, result.stdout + result.stderr).toBe(1);
      expect(existsSync(good), 'the allowed program ran').toBe(true);
      expect(existsSync(bad), 'the refused program ran').toBe(false);
      expect(result.stdout).toMatch(/^REFUSED +\S*allow-suite\/b: its agent program "\/bin\/sh" is not on --allow-command /m);
      expect(result.stdout).toMatch(/^DIFFERS +\S*allow-suite\/a /m);
      expect(result.stdout).toContain('1 run(s) replayed');
      expect(result.stderr).toMatch(/allow-suite\/a starts its agent program: /);
      expect(result.stderr).not.toMatch(/allow-suite\/b starts its/);
    });

    it("--live-upstream: the recorded upstream command is checked and never started when not allowed; one given on replay's own command line is not checked", async () => {
      const dir = copyRun('live-recorded-upstream');
      const marker = join(work, 'live-upstream.marker');
      const file = runFileOf(dir);
      const settings = file['replaySettings'] as Record<string, unknown>;
      const upstream = { command: process.execPath, args: markerArgs(marker), cwd: null, url: null };
      writeFileSync(join(dir, 'run.json'), JSON.stringify({ ...file, replaySettings: { ...settings, upstream } }));
      const refusedRun = await runCli(['replay', dir, '--live-upstream', '--allow-command', 'python3']);
      expect(refusedRun.code).toBe(1);
      expect(refusedRun.stderr).toMatch(/its upstream "[^"]+" is not on --allow-command \("python3"\): a recording is code/);
      expect(existsSync(marker), 'the recorded upstream ran').toBe(false);
      // The operator's own upstream (--upstream-command) is theirs: printed, started, never refused by the list.
      const own = await runCli([
        'replay',
        dir,
        '--live-upstream',
        '--allow-command',
        'python3',
        '--upstream-command',
        process.execPath,
        ...markerArgs(marker).flatMap((arg) => ['--upstream-arg', arg]),
      ]);
      expect(own.stderr).not.toContain('is not on --allow-command');
      expect(own.stderr).toMatch(/live-recorded-upstream starts its upstream: /);
      expect(existsSync(marker), "replay's own upstream ran").toBe(true);
    });

    it('--out holding a folder being replayed is refused too (the replayed runs would join the suite)', async () => {
      const suite = join(work, 'holds');
      cpSync(runDir, join(suite, 'F1-001'), { recursive: true });
      const result = await runCli(['replay', join(suite, 'F1-001'), '--out', suite]);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/--out \S+ holds \S+F1-001, a folder being replayed: .*keep it elsewhere/);
      expect(readdirSync(suite)).toEqual(['F1-001']);
    });
  });

  it('issue 42: a suite with one run that cannot be replayed among good ones replays the others, reports that run, exit 1', async () => {
    const suite = join(work, 'suite');
    cpSync(runDir, join(suite, 'a', 'F1-001'), { recursive: true });
    cpSync(runDir, join(suite, 'b', 'F1-001'), { recursive: true });
    cpSync(runDir, join(suite, 'c', 'F1-001'), { recursive: true });
    rmSync(join(suite, 'b', 'F1-001', 'cassette.jsonl'));
    const junit = join(work, 'suite-junit.xml');
    const result = await runCli(['replay', suite, '--junit', junit]);
    expect(result.code, result.stderr).toBe(1);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^EQUAL {4}\S*a\/F1-001 \(FAIL, /);
    expect(lines[1]).toMatch(/^REFUSED {2}\S*b\/F1-001: no cassette\.jsonl beside run\.json$/);
    expect(lines[2]).toMatch(/^EQUAL {4}\S*c\/F1-001 \(FAIL, /);
    expect(lines.at(-1)).toBe(
      '2 run(s) replayed: 2 equal, 0 differ, 0 left their recording; 1 could not be replayed (REFUSED above)',
    );
    const xml = readFileSync(junit, 'utf8');
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(xml).toMatch(/<testsuites [^>]*tests="3" failures="0" errors="1"/);
    expect(xml).toMatch(
      /<testcase [^>]*file="\S*b\/F1-001">\s*<error message="no cassette\.jsonl beside run\.json" type="REPLAY_REFUSED">/,
    );
  });
});

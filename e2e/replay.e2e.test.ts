/**
 * Record and replay (docs/replay.md), with real processes and counted executions: the real
 * `@modelcontextprotocol/server-memory` recorded through the compiled `proxy --journal … --journal-payloads on`
 * and served back by `proxy --upstream-replay` to an SDK client (same tool list, same answers, nothing
 * executed again: the memory file is untouched); a trial of the shipped SDK agent program with the scripted
 * stub model against the booking server, recorded, then replayed with `trial --upstream-replay` without the
 * server (identical verdict, executions and attribution; the server never sees a session); a careful
 * program replayed against a naive run's recording (a replay miss: NOT_TESTED, never PASS); bad recordings
 * (one line, exit 1).
 */
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, readLines, startProxy, textOf, type ProxyRun } from '../test/support/proxy-harness.js';
import { removeOut, runCompiledTrialInProcess, TASK, type TrialOutput } from '../test/support/trial-harness.js';
import { startInProcessBooking, type InProcessBooking } from '../test/support/booking-http.js';

const MEMORY_SERVER = join(ROOT, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');
const EXAMPLE_AGENT = join(ROOT, 'examples/agents/sdk-agent.mjs');
const script = (name: string) => join(ROOT, 'examples/stub-models', `${name}.yaml`);

type RunRecord = Record<string, unknown>;
/** A replayed run gives what the recorded one did: these fields, and who sent each repeat. */
function expectSameRun(again: RunRecord, first: RunRecord, fields: readonly string[]): void {
  for (const field of fields) expect(again[field], field).toEqual(first[field]);
  const sources = (r: RunRecord) =>
    (r['attribution'] as Array<{ operation: number; attempt: number; source: string }>).map(({ operation, attempt, source }) => ({
      operation,
      attempt,
      source,
    }));
  expect(sources(again)).toEqual(sources(first));
}
/** The recording a trial run wrote beside its run file. */
const recordingOf = (out: string, run: RunRecord) =>
  readFileSync(join(out, 'runs', String(run['run']), 'cassette.jsonl'), 'utf8');

/** The calls an agent makes against server-memory; the third repeats the write (F1 answered it with a timeout). */
const ENTITY = { entities: [{ name: 'Ada Lovelace', entityType: 'person', observations: ['wrote the first program'] }] };
async function memorySession(run: ProxyRun) {
  const { tools } = await run.client.listTools();
  const answers = [
    await run.call('create_entities', ENTITY),
    await run.call('search_nodes', { query: 'Ada' }),
    await run.call('create_entities', ENTITY),
    await run.call('read_graph', {}),
  ];
  return { tools, answers };
}

describe('record and replay', () => {
  let work: string;
  let booking: InProcessBooking;
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'harness-e2e-replay-'));
    booking = await startInProcessBooking();
  });
  afterAll(async () => {
    rmSync(work, { recursive: true, force: true });
    await booking.close();
  });

  it('server-memory recorded through proxy --journal-payloads on, served back by --upstream-replay: the client cannot tell, and nothing executes again', async () => {
    const memoryFile = join(work, 'memory.jsonl');
    const cassette = join(work, 'memory.cassette.jsonl');
    const live = await startProxy({
      flags: ['--upstream-command', process.execPath, '--upstream-arg', MEMORY_SERVER],
      extra: ['--scenario', 'F1', '--journal', 'journal.jsonl', '--journal-payloads', 'on'],
      env: { MEMORY_FILE_PATH: memoryFile },
    });
    let recorded;
    try {
      recorded = await memorySession(live);
      copyFileSync(join(live.dir, 'journal.cassette.jsonl'), cassette);
      expect(live.report().report.operations).toEqual([expect.objectContaining({ tool: 'create_entities', executions: 2 })]);
      expect((live.report() as unknown as Record<string, unknown>)['replayed']).toBeUndefined();
      expect(readLines(join(live.dir, 'journal.jsonl'))[0]!['replayed']).toBeUndefined();
    } finally {
      await live.stop();
      rmSync(live.dir, { recursive: true, force: true });
    }
    const entitiesAfterRecording = readFileSync(memoryFile, 'utf8');
    expect(readLines(memoryFile).filter((line) => line['type'] === 'entity')).toHaveLength(1);
    const header = JSON.parse(readFileSync(cassette, 'utf8').split('\n')[0]!) as Record<string, unknown>;
    expect(header).toMatchObject({ recorded: 'proxy', upstream: { serverName: 'memory-server', tools: 9 }, redacted: [] });

    const replay = await startProxy({
      flags: ['--upstream-replay', cassette],
      extra: ['--scenario', 'F1', '--journal', 'journal.jsonl'],
    });
    try {
      const replayed = await memorySession(replay);
      expect(replayed.tools).toEqual(recorded.tools);
      expect(replayed.answers).toEqual(recorded.answers);
      // Executions in a replay are the recorded ones: the same FAIL, from the same two executions.
      const report = replay.report();
      expect(report.report.operations).toEqual([expect.objectContaining({ tool: 'create_entities', executions: 2 })]);
      expect(report.verdict).toBe('FAIL');
      // A call the recording does not hold: an error naming the miss, never a live server.
      const missed = await replay.call('delete_entities', { entityNames: ['Ada Lovelace'] });
      expect(missed.isError).toBe(true);
      expect(JSON.stringify(missed.content)).toContain('REPLAY_MISS: no recorded tools/call \\"delete_entities\\"');
      expect(replay.report().report.verdictReason).toMatch(/^replay miss: 1 call\(s\)/);
      // A replayed session is marked wherever a report of it is read: the file, get_report, the journal's header.
      expect((replay.report() as unknown as Record<string, unknown>)['replayed']).toBe(true);
      const json = await replay.call('cuonztech__get_report', { format: 'json' });
      expect((json.structuredContent as Record<string, unknown>)['replayed']).toBe(true);
      expect(textOf(await replay.call('cuonztech__get_report'))).toMatch(/^Replayed: the upstream is a recording/);
      expect(readLines(join(replay.dir, 'journal.jsonl'))[0]).toMatchObject({ event: 'journal', replayed: true });
    } finally {
      await replay.stop();
    }
    try {
      // check says so on the session's line.
      const checked = await execa(process.execPath, [BIN, 'check', replay.reportFile, '--fail-on', 'none'], { reject: false });
      expect(checked.exitCode, checked.stderr).toBe(0);
      expect(String(checked.stdout)).toMatch(/NOT_TESTED .*replayed from a recording; replay miss/);
    } finally {
      rmSync(replay.dir, { recursive: true, force: true });
    }
    expect(readFileSync(memoryFile, 'utf8')).toBe(entitiesAfterRecording);
  });

  it("--redact applies to the journal's payloads as to the recording: the same fields redacted in both, and both headers say so", async () => {
    const run = await startProxy({ extra: ['--journal', 'journal.jsonl', '--journal-payloads', 'on', '--redact', 'guest'] });
    try {
      await run.call('create_booking', { guest: 'Grace Hopper', date: '2026-05-01' });
    } finally {
      await run.stop();
    }
    try {
      expect(readLines(run.ledgerFile)).toHaveLength(1);
      const journal = readLines(join(run.dir, 'journal.jsonl'));
      const recording = readLines(join(run.dir, 'journal.cassette.jsonl'));
      expect(journal[0]).toMatchObject({ event: 'journal', payloads: true, redacted: ['guest'] });
      expect(recording[0]).toMatchObject({ redacted: ['guest'] });
      // The same arguments in both files: the field's value replaced (a value inside a text block is text, not a field).
      const sent = { guest: '[REDACTED]', date: '2026-05-01' };
      expect(journal.find((l) => l['event'] === 'received')!['arguments']).toEqual(sent);
      const call = recording.find((l) => (l['message'] as Record<string, unknown> | undefined)?.['method'] === 'tools/call');
      expect((call!['message'] as { params: { arguments: unknown } }).params.arguments).toEqual(sent);
    } finally {
      rmSync(run.dir, { recursive: true, force: true });
    }
  });

  describe('trial --upstream-replay', () => {
    let recorded: TrialOutput;
    let cassette: string;
    const trial = (name: string, upstream: string[]) =>
      runCompiledTrialInProcess([
        '--agent-command',
        process.execPath,
        '--agent-arg',
        EXAMPLE_AGENT,
        '--stub-model',
        script(name),
        ...TASK,
        '--runs',
        '1',
        '--scenario',
        'F1',
        ...upstream,
      ]);
    beforeAll(async () => {
      recorded = await trial('booking-naive', ['--upstream-url', booking.url]);
      expect(recorded.result.exitCode, recorded.result.stderr).toBe(0);
      cassette = join(work, 'booking.cassette.jsonl');
      copyFileSync(join(recorded.out, 'runs', recorded.runs[0]!.run, 'cassette.jsonl'), cassette);
    });
    afterAll(() => removeOut(recorded));

    it('every run writes cassette.jsonl beside its run file; replayed without the server: identical verdict, executions and attribution', async () => {
      const [run] = recorded.runs;
      expect(run!.verdict).toBe('FAIL');
      // The model's side is in the same recording: one request line and one answer line per exchange.
      const lines = readFileSync(cassette, 'utf8')
        .trimEnd()
        .split('\n')
        .slice(1)
        .map((l) => JSON.parse(l) as { side: string; dir: string });
      const modelCalls = (run as unknown as { modelCalls: number }).modelCalls;
      expect(lines.filter((l) => l.side === 'model' && l.dir === 'send')).toHaveLength(modelCalls);
      expect(lines.filter((l) => l.side === 'model' && l.dir === 'receive')).toHaveLength(modelCalls);
      const sessionsBefore = booking.sessions.length;
      const replayed = await trial('booking-naive', ['--upstream-replay', cassette]);
      try {
        expect(replayed.result.exitCode, replayed.result.stderr).toBe(0);
        expect(booking.sessions.length).toBe(sessionsBefore);
        const [again] = replayed.runs as unknown as Array<Record<string, unknown>>;
        const first = run as unknown as Record<string, unknown>;
        expectSameRun(again!, first, ['verdict', 'verdictReason', 'executions', 'extraExecutions', 'toolCalls']);
        // A replay repeats a recorded sample: marked, and never pooled with the live runs.
        expect(again!['replayed']).toBe(true);
        expect((again!['report'] as Record<string, unknown>)['replayed']).toBe(true);
        expect((run as unknown as Record<string, unknown>)['replayed']).toBeUndefined();
        expect((first['report'] as Record<string, unknown>)['replayed']).toBeUndefined();
        const stats = await execa(process.execPath, [BIN, 'stats', recorded.out, replayed.out], { reject: false });
        expect(stats.exitCode).toBe(1);
        expect(String(stats.stderr)).toContain('--upstream-replay');
        // The replay's own recording is the same exchange, byte for byte (stable lines: small git diffs).
        expect(recordingOf(replayed.out, again!)).toBe(readFileSync(cassette, 'utf8'));
      } finally {
        removeOut(replayed);
      }
    });

    it('two live recordings of the same scripted run are the same bytes (a recording committed to git changes only where the exchange did)', async () => {
      const again = await trial('booking-naive', ['--upstream-url', booking.url]);
      try {
        expect(again.result.exitCode, again.result.stderr).toBe(0);
        const second = readFileSync(join(again.out, 'runs', again.runs[0]!.run, 'cassette.jsonl'), 'utf8');
        expect(second).toBe(readFileSync(cassette, 'utf8'));
      } finally {
        removeOut(again);
      }
    });

    it('the careful program against the naive run recording: its keyed write and its read miss, so the run is NOT_TESTED "replay miss", never PASS', async () => {
      const replayed = await trial('booking-careful', ['--upstream-replay', cassette]);
      try {
        expect(replayed.result.exitCode, replayed.result.stderr).toBe(0);
        const [run] = replayed.runs;
        expect(run!.verdict).toBe('NOT_TESTED');
        expect(run!.verdictReason).toMatch(/^replay miss: \d call\(s\) had no recorded answer/);
      } finally {
        removeOut(replayed);
      }
    });

    /** The program with both sides replayed from recordings: no stub script, no server. */
    const bothReplayed = (modelCassette: string, upstreamCassette: string) =>
      runCompiledTrialInProcess([
        '--agent-command',
        process.execPath,
        '--agent-arg',
        EXAMPLE_AGENT,
        '--model-replay',
        modelCassette,
        ...TASK,
        '--runs',
        '1',
        '--scenario',
        'F1',
        '--upstream-replay',
        upstreamCassette,
      ]);

    it('--model-replay with --upstream-replay: the same verdict, executions and attribution with neither the model nor the server', async () => {
      const sessionsBefore = booking.sessions.length;
      const replayed = await bothReplayed(cassette, cassette);
      try {
        expect(replayed.result.exitCode, replayed.result.stderr).toBe(0);
        expect(booking.sessions.length).toBe(sessionsBefore);
        const [again] = replayed.runs as unknown as Array<Record<string, unknown>>;
        const first = recorded.runs[0] as unknown as Record<string, unknown>;
        expectSameRun(again!, first, ['verdict', 'verdictReason', 'executions', 'extraExecutions', 'toolCalls', 'modelCalls']);
        expect(again!['replayed']).toBe(true);
        expect(recordingOf(replayed.out, again!)).toBe(readFileSync(cassette, 'utf8'));
      } finally {
        removeOut(replayed);
      }
    });

    it('the naive recording\'s model side against the careful run\'s upstream recording: "model replay mismatch" naming the first request that differs', async () => {
      const careful = await trial('booking-careful', ['--upstream-url', booking.url]);
      const carefulCassette = join(work, 'careful.cassette.jsonl');
      try {
        expect(careful.result.exitCode, careful.result.stderr).toBe(0);
        copyFileSync(join(careful.out, 'runs', careful.runs[0]!.run, 'cassette.jsonl'), carefulCassette);
      } finally {
        removeOut(careful);
      }
      const replayed = await bothReplayed(cassette, carefulCassette);
      try {
        expect(replayed.result.exitCode, replayed.result.stderr).toBe(0);
        const [run] = replayed.runs;
        expect(run!.verdict).toBe('NOT_TESTED');
        // The naive write (no key) is not in the careful recording: its tool message is the first difference.
        expect(run!.verdictReason).toMatch(
          /^model replay mismatch: model request 2 is not the recorded one: message 3 \(tool\): recorded .*timed out.*, now .*REPLAY_MISS/,
        );
        // Printed once: in the run's line (and the summary's NOT_TESTED line), not as a notice of its own.
        const stderr = String(replayed.result.stderr);
        expect(stderr.split('\n').filter((l) => l.includes('model replay mismatch'))).toHaveLength(1);
      } finally {
        removeOut(replayed);
      }
    });

    it('a run recorded under --model-fault 500 replays under the same fault with the same verdict, executions and attribution; under another fault it is refused in one line', async () => {
      const withFault = (upstream: string[], model: string[], fault: string[]) =>
        runCompiledTrialInProcess([
          '--agent-command',
          process.execPath,
          '--agent-arg',
          EXAMPLE_AGENT,
          ...model,
          ...TASK,
          '--runs',
          '1',
          '--scenario',
          'F1',
          ...fault,
          ...upstream,
        ]);
      const live = await withFault(
        ['--upstream-url', booking.url],
        ['--stub-model', script('booking-naive')],
        ['--model-fault', '500'],
      );
      const faulted = join(work, 'faulted.cassette.jsonl');
      let first: Record<string, unknown>;
      try {
        expect(live.result.exitCode, live.result.stderr).toBe(0);
        first = live.runs[0] as unknown as Record<string, unknown>;
        expect(first['modelFault']).toMatchObject({ kind: '500', triggered: true });
        copyFileSync(join(live.out, 'runs', String(first['run']), 'cassette.jsonl'), faulted);
        // `replay RUN` injects the run's own model fault again (its run file records it): EQUAL, and the
        // replayed run file says the fault fired where it did.
        const kept = mkdtempSync(join(tmpdir(), 'replay-fault-out-'));
        try {
          const replayed = await execa(
            process.execPath,
            [BIN, 'replay', join(live.out, 'runs', String(first['run'])), '--out', kept],
            { cwd: ROOT, reject: false },
          );
          expect(replayed.exitCode, replayed.stderr).toBe(0);
          expect(replayed.stdout).toMatch(/^EQUAL/m);
          const runFiles = readdirSync(kept, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('run.json'));
          expect(runFiles).toHaveLength(1);
          const again = JSON.parse(readFileSync(join(kept, runFiles[0]!), 'utf8')) as Record<string, unknown>;
          expect(again['modelFault']).toEqual(first['modelFault']);
        } finally {
          rmSync(kept, { recursive: true, force: true });
        }
      } finally {
        removeOut(live);
      }
      // The header names the fault; the faulted exchange is marked as the harness's own.
      const lines = readFileSync(faulted, 'utf8').trimEnd().split('\n');
      expect(JSON.parse(lines[0]!)).toMatchObject({ modelFault: { fault: '500', on: 'after-write' } });
      expect(lines.filter((l) => l.includes('"modelFault":"500"'))).toHaveLength(1);
      const sessionsBefore = booking.sessions.length;
      const replay = (fault: string[]) => withFault(['--upstream-replay', faulted], ['--model-replay', faulted], fault);
      const same = await replay(['--model-fault', '500']);
      try {
        expect(same.result.exitCode, same.result.stderr).toBe(0);
        expect(booking.sessions.length).toBe(sessionsBefore);
        const [again] = same.runs as unknown as Array<Record<string, unknown>>;
        expectSameRun(again!, first!, [
          'verdict',
          'verdictReason',
          'executions',
          'extraExecutions',
          'toolCalls',
          'modelCalls',
          'modelFault',
        ]);
        expect(recordingOf(same.out, again!)).toBe(readFileSync(faulted, 'utf8'));
      } finally {
        removeOut(same);
      }
      for (const [fault, recordedAs] of [
        [['--model-fault', '429:1'], 'under --model-fault 500 --model-fault-on after-write'],
        [['--model-fault', '500', '--model-fault-on', '2'], 'under --model-fault 500 --model-fault-on after-write'],
      ] as const) {
        const other = await replay([...fault]);
        try {
          expect(other.result.exitCode).toBe(1);
          const errorLines = String(other.result.stderr).trim().split('\n');
          expect(errorLines).toHaveLength(1);
          expect(errorLines[0]).toContain(`was made ${recordedAs}, this trial gives --model-fault ${fault[1]}`);
        } finally {
          removeOut(other);
        }
      }
      // A recording made without a model fault is refused under one too.
      const none = await withFault(['--upstream-replay', cassette], ['--model-replay', cassette], ['--model-fault', '500']);
      try {
        expect(none.result.exitCode).toBe(1);
        expect(String(none.result.stderr).trim()).toMatch(
          /^[^\n]*was made without --model-fault, this trial gives --model-fault 500 --model-fault-on after-write[^\n]*$/,
        );
      } finally {
        removeOut(none);
      }
    });

    it('a recording that cannot be replayed exactly is one line and exit 1, before anything starts', async () => {
      const text = readFileSync(cassette, 'utf8');
      const cases: Array<[string, string, RegExp]> = [
        ['torn.jsonl', text.slice(0, -1), /line \d+ is truncated/],
        ['v2.jsonl', text.replace('"v":1', '"v":2'), /recording format version 2, this harness reads version 1/],
        ['other.jsonl', text.replace('"name":"search_bookings"', '"name":"search_other"'), /is not the one its header names/],
        ['redacted.jsonl', text.replace('"redacted":[]', '"redacted":["guest"]'), /redacted \(guest\).*--allow-redacted on/],
      ];
      for (const [name, content, message] of cases) {
        const file = join(work, name);
        writeFileSync(file, content);
        const result = await execa(process.execPath, [BIN, 'proxy', '--upstream-replay', file], { reject: false, input: '' });
        expect(result.exitCode, name).toBe(1);
        const lines = String(result.stderr).trim().split('\n');
        expect(lines, name).toHaveLength(1);
        expect(lines[0], name).toMatch(message);
      }
    });
  });
});

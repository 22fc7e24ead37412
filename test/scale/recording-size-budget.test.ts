/**
 * A recording at full size stays readable by its own reader (issue 41 §3): a session whose answers add
 * up to far more than the readers' 64 MiB input limit (MAX_INPUT_BYTES) is recorded within the budget
 * (CASSETTE_LIMITS, src/adapters/cassette/cassette-budget.ts), read back whole and replayed: the answers
 * kept whole are served, the later ones are replay misses. It writes and hashes about 150 MiB, hence the
 * scale project; the same rule at a few KiB is in test/adapters/cassette/cassette.test.ts.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { CassetteFile } from '../../src/adapters/cassette/cassette-file.js';
import { readCassette } from '../../src/adapters/cassette/cassette-reader.js';
import { CASSETTE_LIMITS } from '../../src/adapters/cassette/cassette-budget.js';
import { RecordingUpstreamSide } from '../../src/adapters/cassette/recording-upstream-side.js';
import { ReplayUpstreamSide } from '../../src/adapters/cassette/replay-upstream-side.js';
import { MAX_INPUT_BYTES } from '../../src/adapters/files/report-files/regular-file.js';
import type { UpstreamCallOutcome, UpstreamSide } from '../../src/ports/upstream-side.port.js';

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

const ANSWER_CHARS = 9 * 1024 * 1024;
const answer = (n: number): UpstreamCallOutcome => ({
  kind: 'result',
  result: { content: [{ type: 'text', text: `${n}:${'x'.repeat(ANSWER_CHARS)}` }] },
});

const upstream: UpstreamSide = {
  connect: () => Promise.resolve({ serverName: 'big', serverVersion: '1' }),
  listTools: () => Promise.resolve([{ name: 'export_all', inputSchema: { type: 'object' } }]),
  callTool: (request) => Promise.resolve(answer(Number((request.arguments as { n: number }).n))),
  onExit: () => undefined,
  close: () => Promise.resolve(),
};

it('16 answers of 9 MiB and a 20 MiB model answer: the recording stays under the input limit, is read back and replays the answers it kept', async () => {
  dir = mkdtempSync(join(tmpdir(), 'recording-budget-'));
  const path = join(dir, 'cassette.jsonl');
  const tap = new RecordingUpstreamSide(upstream, await CassetteFile.open(path, () => undefined), {
    recorded: 'trial run 1',
    harnessVersion: 'test',
    redact: [],
  });
  await tap.connect();
  await tap.listTools();
  const calls = 16;
  for (let n = 1; n <= calls; n++) await tap.callTool({ name: 'export_all', arguments: { n } }, { timeoutMs: 1000 });
  const exchange = tap.model.request({ messages: [{ role: 'user', content: 'export' }], tools: [] });
  tap.model.answer(exchange, { content: 'y'.repeat(20 * 1024 * 1024), toolCalls: [], finishReason: 'stop' });
  await tap.close();

  const size = statSync(path).size;
  expect(size).toBeLessThan(MAX_INPUT_BYTES);
  expect(size).toBeGreaterThan(CASSETTE_LIMITS.keptBytes - ANSWER_CHARS);

  const side = new ReplayUpstreamSide(await readCassette(path, { allowRedacted: false }));
  await side.connect();
  const outcomes: UpstreamCallOutcome[] = [];
  for (let n = 1; n <= calls; n++)
    outcomes.push(await side.callTool({ name: 'export_all', arguments: { n } }, { timeoutMs: 1000 }));
  const kept = outcomes.filter((o) => o.kind === 'result').length;
  expect(kept).toBe(Math.floor(CASSETTE_LIMITS.keptBytes / (ANSWER_CHARS + 200)));
  expect(outcomes[0]).toEqual(answer(1));
  expect(outcomes.slice(kept).every((o) => o.kind === 'replay-miss')).toBe(true);
});

/**
 * What record and replay cost per call (docs/replay.md), at the upstream port: the recording tap writing a
 * 1000-call session (two lines per call, one synchronous write each), then reading the recording back
 * (`--upstream-replay`'s checks: every line parsed with its schema, the tool list hashed), indexing it,
 * and replaying the 1000 calls (matched by tool name and canonical arguments). Not through the proxy's
 * pipeline: its own cost is `npm run bench`'s.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CassetteFile } from '../src/adapters/cassette/cassette-file.js';
import { readCassette } from '../src/adapters/cassette/cassette-reader.js';
import { RecordingUpstreamSide } from '../src/adapters/cassette/recording-upstream-side.js';
import { ReplayUpstreamSide } from '../src/adapters/cassette/replay-upstream-side.js';
import type { ToolCallRequest } from '../src/ports/shapes/mcp-shapes.js';
import type { UpstreamSide } from '../src/ports/upstream-side.port.js';
import { median, nowMs } from './measure.js';

const OPTIONS = { timeoutMs: 1000 };

/** The booking example's write: 50 guests, 500 keys, so identical calls queue. */
const call = (i: number): ToolCallRequest => ({
  name: 'create_booking',
  arguments: { guest: `Guest ${i % 50}`, date: '2026-05-01', room: 'standard', nights: 2, idempotency_key: `k-${i % 500}` },
});

const upstream: UpstreamSide = {
  connect: () => Promise.resolve({ serverName: 'booking-server', serverVersion: '1.0.0' }),
  listTools: () => Promise.resolve([{ name: 'create_booking' }, { name: 'search_bookings' }]),
  callTool: (request) =>
    Promise.resolve({ kind: 'result', result: { content: [{ type: 'text', text: JSON.stringify(request.arguments) }] } }),
  onExit: () => undefined,
  close: () => Promise.resolve(),
};

export async function measureReplay(calls: number, rounds: number) {
  const dir = mkdtempSync(join(tmpdir(), 'harness-bench-replay-'));
  try {
    const figures: Array<{ record: number; read: number; index: number; replay: number }> = [];
    for (let round = 0; round < rounds; round++) {
      const path = join(dir, `r${round}.jsonl`);
      const tap = new RecordingUpstreamSide(upstream, await CassetteFile.open(path, () => undefined), {
        recorded: 'proxy',
        harnessVersion: 'bench',
        redact: [],
      });
      await tap.connect();
      await tap.listTools();
      let t = nowMs();
      for (let i = 0; i < calls; i++) await tap.callTool(call(i), OPTIONS);
      const record = nowMs() - t;
      await tap.close();
      t = nowMs();
      const cassette = await readCassette(path, { allowRedacted: false });
      const read = nowMs() - t;
      t = nowMs();
      const replay = new ReplayUpstreamSide(cassette);
      await replay.listTools();
      const index = nowMs() - t;
      t = nowMs();
      for (let i = 0; i < calls; i++)
        if ((await replay.callTool(call(i), OPTIONS)).kind !== 'result') throw new Error(`call ${i} missed its recording`);
      figures.push({ record, read, index, replay: nowMs() - t });
    }
    const m = (pick: (f: (typeof figures)[number]) => number) => median(figures.map(pick));
    return {
      recordMicrosPerCall: (m((f) => f.record) / calls) * 1000,
      readMs: m((f) => f.read),
      indexMs: m((f) => f.index),
      replayMicrosPerCall: (m((f) => f.replay) / calls) * 1000,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The hostile recording of issue 41 §5 at the size the readers' input cap allows (64 MiB): `calls`
 * `tools/call` requests all open at once and sharing one progress token, a progress notification for
 * each, then every answer — recorded by the tap itself, so the lines are the real format. Reading,
 * checking and indexing it (what `proxy --upstream-replay` does before serving) was quadratic in open
 * calls × notifications (20 000 × 20 000: 129 s, 3.97 GB); each notification now goes to one call.
 */
export async function measureSharedTokenRecording(calls: number) {
  const dir = mkdtempSync(join(tmpdir(), 'harness-bench-replay-token-'));
  try {
    const path = join(dir, 'shared-token.jsonl');
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const holding: UpstreamSide = {
      ...upstream,
      callTool: async (request, options) => {
        options.onProgress?.({ progressToken: 'shared', progress: 1 });
        await held;
        return { kind: 'result', result: { content: [{ type: 'text', text: JSON.stringify(request.arguments) }] } };
      },
    };
    const tap = new RecordingUpstreamSide(holding, await CassetteFile.open(path, () => undefined), {
      recorded: 'proxy',
      harnessVersion: 'bench',
      redact: [],
      // Every line whole up to the input cap: a hostile recording need not come from the harness's own
      // recorder, whose size budget would cut its lines past 48 MiB (CASSETTE_LIMITS).
      limits: { keptBytes: Number.POSITIVE_INFINITY, stopBytes: Number.POSITIVE_INFINITY },
    });
    await tap.connect();
    await tap.listTools();
    const pending = Array.from({ length: calls }, (_, i) =>
      tap.callTool(
        { name: 'create_booking', arguments: { guest: `Guest ${i}`, n: i }, meta: { progressToken: 'shared' } },
        OPTIONS,
      ),
    );
    release();
    await Promise.all(pending);
    await tap.close();
    const bytes = statSync(path).size;
    const rssBefore = process.memoryUsage().rss;
    const t = nowMs();
    const cassette = await readCassette(path, { allowRedacted: false });
    const replay = new ReplayUpstreamSide(cassette);
    await replay.listTools();
    return { calls, bytes, readAndIndexMs: nowMs() - t, rssGrowthBytes: process.memoryUsage().rss - rssBefore };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith('replay.js') === true) {
  const shared = process.argv.indexOf('--shared-token');
  if (shared >= 0) {
    // Default: about 64 MiB of recording, the readers' input cap (`--shared-token N` for another size).
    const calls = Number(process.argv[shared + 1] ?? 175_000);
    const f = await measureSharedTokenRecording(calls);
    process.stdout.write(
      `${f.calls} open calls sharing a progress token, ${(f.bytes / 1024 / 1024).toFixed(1)} MiB recording: read, check and index ${f.readAndIndexMs.toFixed(0)} ms; RSS grew ${(f.rssGrowthBytes / 1024 / 1024).toFixed(0)} MiB\n`,
    );
  } else {
    const calls = 1000;
    const f = await measureReplay(calls, 5);
    process.stdout.write(
      `${calls} calls, median of 5 rounds: record ${f.recordMicrosPerCall.toFixed(1)} µs/call; read and check ${f.readMs.toFixed(1)} ms; index ${f.indexMs.toFixed(1)} ms; replay ${f.replayMicrosPerCall.toFixed(1)} µs/call\n`,
    );
  }
}

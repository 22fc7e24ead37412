/**
 * `node dist/bench/trial.js` (after `npm run build`): the harness's own cost per `trial` run, with the
 * scripted model server (test/fixtures/model-server, answers at once) so that nothing but the harness
 * is measured. 100 runs of 10 tool calls each (persona `ten-bookings`: 11 model requests per run)
 * against the bundled booking server, at concurrency 1 and 8; and, for comparison, what starting the
 * booking server alone costs (spawn + initialize + tools/list with the SDK client). Writes
 * bench/results/trial.json and prints a table. Measures only.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startModelServer } from '../test/fixtures/model-server/model-server.js';
import { BIN, ROOT } from './scenarios.js';

const BOOKING_SERVER = join(ROOT, 'dist/examples/booking-server/server.js');
const args = process.argv.slice(2);
const RUNS = Number(args.find((a) => a.startsWith('--runs='))?.slice(7) ?? 100);
const CONCURRENCIES = [1, 8];

interface RunFile {
  durationMs: number;
  startedAt: string;
  toolCalls: number;
  verdict: string;
  executions: number;
  transcript: Array<{ at: string }>;
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function run(command: string, argv: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, argv, { maxBuffer: 64 * 1024 * 1024, timeout: 1_800_000 }, (error, _stdout, stderr) =>
      resolve({ code: error === null ? 0 : ((error as { code?: number }).code ?? 1), stderr }),
    );
  });
}

async function upstreamStartMs(): Promise<number> {
  const started = performance.now();
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BOOKING_SERVER], stderr: 'ignore' }));
  await client.listTools();
  const ms = performance.now() - started;
  await client.close();
  return ms;
}

async function main(): Promise<void> {
  const server = await startModelServer();
  const results: Record<string, unknown>[] = [];
  const startups: number[] = [];
  for (let i = 0; i < 20; i++) startups.push(await upstreamStartMs());
  for (const concurrency of CONCURRENCIES) {
    const out = mkdtempSync(join(tmpdir(), 'bench-trial-'));
    const requestsBefore = server.requests.length;
    const started = performance.now();
    const result = await run(process.execPath, [
      BIN,
      'trial',
      '--model',
      'ten-bookings',
      '--base-url',
      server.baseUrl,
      '--task',
      'Book ten rooms.',
      '--max-steps',
      '20',
      '--honesty',
      'off',
      '--upstream-command',
      process.execPath,
      '--upstream-arg',
      BOOKING_SERVER,
      '--runs',
      String(RUNS),
      '--concurrency',
      String(concurrency),
      '--out',
      out,
    ]);
    const wallMs = performance.now() - started;
    if (result.code !== 0) throw new Error(`trial failed: ${result.stderr}`);
    const runs = readdirSync(join(out, 'runs')).map(
      (id) => JSON.parse(readFileSync(join(out, 'runs', id, 'run.json'), 'utf8')) as RunFile,
    );
    const durations = runs.map((r) => r.durationMs);
    // Where a run's time goes: start (upstream spawned, MCP handshake, tools listed) → conversation → stop (final report, upstream ended, run file).
    const phases = runs.map((r) => {
      const start = Date.parse(r.startedAt);
      const first = Date.parse(r.transcript[0]!.at);
      const last = Date.parse(r.transcript.at(-1)!.at);
      return { start: first - start, conversation: last - first, stop: start + r.durationMs - last };
    });
    results.push({
      concurrency,
      runs: runs.length,
      toolCallsPerRun: quantile(
        runs.map((r) => r.toolCalls),
        0.5,
      ),
      executionsPerRun: quantile(
        runs.map((r) => r.executions),
        0.5,
      ),
      modelRequests: server.requests.length - requestsBefore,
      wallMs: Math.round(wallMs),
      wallMsPerRun: Math.round(wallMs / runs.length),
      runMsMedian: quantile(durations, 0.5),
      runMsP95: quantile(durations, 0.95),
      startMsMedian: quantile(
        phases.map((p) => p.start),
        0.5,
      ),
      conversationMsMedian: quantile(
        phases.map((p) => p.conversation),
        0.5,
      ),
      stopMsMedian: quantile(
        phases.map((p) => p.stop),
        0.5,
      ),
      verdicts: [...new Set(runs.map((r) => r.verdict))],
    });
    rmSync(out, { recursive: true, force: true });
  }
  await server.close();
  const figures = {
    date: new Date().toISOString(),
    machine: { cpu: cpus()[0]?.model, cpus: cpus().length, node: process.version, load1: loadavg()[0] },
    upstreamStartMsMedian: Math.round(quantile(startups, 0.5)),
    trial: results,
  };
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(join(ROOT, 'bench/results/trial.json'), `${JSON.stringify(figures, null, 2)}\n`);
  process.stdout.write(
    `booking server start alone (spawn + initialize + tools/list), median of 20: ${figures.upstreamStartMsMedian} ms\n`,
  );
  process.stdout.write(
    'concurrency  runs  tool calls/run  wall total  wall per run  run median  run p95  start / conversation / stop (medians)\n',
  );
  for (const r of results) {
    process.stdout.write(
      // eslint-disable-next-line @typescript-eslint/restrict-template-expressions -- the figures are numbers read back from the run records
      `${String(r['concurrency']).padEnd(13)}${String(r['runs']).padEnd(6)}${String(r['toolCallsPerRun']).padEnd(16)}${`${((r['wallMs'] as number) / 1000).toFixed(1)} s`.padEnd(12)}${`${r['wallMsPerRun']} ms`.padEnd(14)}${`${r['runMsMedian']} ms`.padEnd(12)}${`${r['runMsP95']} ms`.padEnd(9)}${r['startMsMedian']} / ${r['conversationMsMedian']} / ${r['stopMsMedian']} ms\n`,
    );
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});

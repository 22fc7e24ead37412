/**
 * Before and after, side by side in one run: this build's proxy against another build's (e.g. the commit
 * before a refactor), on the same machine in the same minutes, interleaved round by round so a change in
 * the machine's speed hits both alike. Paths per N: the upstream reached directly, both proxies without a
 * report file (what the pipeline costs) and both with one; then start-up and `benchmark --runs`.
 *
 *   npm run bench:compare -- --before /tmp/before/dist [--calls 1000,5000] [--rounds 3] [--startup 10] [--benchmark 3]
 *
 * `--before` is the other build's `dist` folder (its `cli/bin.js` is run, or `src/cli/bin.js` in a build
 * from before the bundle). `--startup` and `--benchmark` are the interleaved pairs of start-ups and of
 * `benchmark --runs 1000` (0 skips them). Writes `bench/results/compare.json`; the table goes to stdout.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { measurePath, measureStartup } from './drive.js';
import { median, nowMs } from './measure.js';
import { BIN, ROOT, type PathName } from './scenarios.js';

interface Arm {
  label: string;
  path: PathName;
  bin: string;
}

function fail(message: string): never {
  process.stderr.write(`bench:compare: ${message}\n`);
  process.exit(1);
}

const { values } = parseArgs({
  options: {
    before: { type: 'string' },
    calls: { type: 'string', default: '1000,5000' },
    rounds: { type: 'string', default: '3' },
    startup: { type: 'string', default: '10' },
    benchmark: { type: 'string', default: '3' },
  },
});
if (values.before === undefined) fail('--before <dist folder of the other build> is required');
// The bundled CLI (cli/bin.js), or a build from before the bundle (src/cli/bin.js).
const beforeDist = resolve(values.before);
const beforeBin =
  ['cli/bin.js', 'src/cli/bin.js'].map((file) => join(beforeDist, file)).find((file) => existsSync(file)) ??
  join(beforeDist, 'cli/bin.js');
if (!existsSync(beforeBin)) fail(`no compiled CLI at ${beforeBin}`);
const sizes = values.calls.split(',').map(Number);
const rounds = Number(values.rounds);
if (sizes.some((n) => !Number.isInteger(n) || n < 1) || !Number.isInteger(rounds) || rounds < 1)
  fail('--calls and --rounds take positive integers');
const startupPairs = Number(values.startup);
const benchmarkPairs = Number(values.benchmark);
if (![startupPairs, benchmarkPairs].every((n) => Number.isInteger(n) && n >= 0))
  fail('--startup and --benchmark take whole numbers (0 skips)');

const ARMS: Arm[] = [
  { label: 'direct', path: 'direct', bin: BIN },
  { label: 'before, no report file', path: 'proxyNoFile', bin: beforeBin },
  { label: 'after, no report file', path: 'proxyNoFile', bin: BIN },
  { label: 'before, report file', path: 'proxy', bin: beforeBin },
  { label: 'after, report file', path: 'proxy', bin: BIN },
];

const progress = (line: string): void => void process.stderr.write(`${line}\n`);
const loadAtStart = loadavg()[0] ?? 0;
const started = nowMs();
const results: Record<
  string,
  Record<string, { meanMs: number; addedMs: number; cpuMsPerCall: number | null; peakRssMb: number | null }>
> = {};
for (const calls of sizes) {
  const means = new Map<string, number[]>(ARMS.map((arm) => [arm.label, []]));
  const cpu = new Map<string, number[]>(ARMS.map((arm) => [arm.label, []]));
  const rss = new Map<string, number[]>(ARMS.map((arm) => [arm.label, []]));
  for (let round = 0; round < rounds; round++) {
    // Rotate the order each round, so neither build always runs first.
    const order = ARMS.map((_, i) => ARMS[(i + round) % ARMS.length]!);
    for (const arm of order) {
      const run = await measurePath(arm.path, calls, [], arm.bin);
      means.get(arm.label)!.push(run.meanMs);
      if (run.cpuMs !== null) cpu.get(arm.label)!.push(run.cpuMs / calls);
      if (run.peakRssMb !== null) rss.get(arm.label)!.push(run.peakRssMb);
      progress(
        `N=${calls} round ${round + 1}: ${arm.label} ${run.meanMs.toFixed(3)} ms per call, CPU ${run.cpuMs === null ? '?' : (run.cpuMs / calls).toFixed(3)} ms per call`,
      );
    }
  }
  const direct = median(means.get('direct')!);
  results[calls] = Object.fromEntries(
    ARMS.map((arm) => {
      const m = median(means.get(arm.label)!);
      const cpuSamples = cpu.get(arm.label)!;
      const rssSamples = rss.get(arm.label)!;
      return [
        arm.label,
        {
          meanMs: m,
          addedMs: m - direct,
          cpuMsPerCall: cpuSamples.length > 0 ? median(cpuSamples) : null,
          peakRssMb: rssSamples.length > 0 ? median(rssSamples) : null,
        },
      ];
    }),
  );
}

const startup: Record<string, number> = {};
{
  const samples = new Map<string, number[]>([
    ['before', []],
    ['after', []],
  ]);
  for (let i = 0; i < startupPairs; i++) {
    samples.get(i % 2 === 0 ? 'before' : 'after')!.push(await measureStartup('proxy', i % 2 === 0 ? beforeBin : BIN));
    samples.get(i % 2 === 0 ? 'after' : 'before')!.push(await measureStartup('proxy', i % 2 === 0 ? BIN : beforeBin));
  }
  for (const [label, values] of samples) if (values.length > 0) startup[label] = median(values);
}

function benchmarkWallMs(bin: string, runs: number): Promise<number> {
  const cwd = mkdtempSync(join(tmpdir(), 'harness-compare-'));
  const t0 = nowMs();
  return new Promise((done, reject) =>
    execFile(process.execPath, [bin, 'benchmark', '--runs', String(runs)], { cwd, maxBuffer: 64 << 20 }, (error) => {
      rmSync(cwd, { recursive: true, force: true });
      if (error !== null) reject(new Error(`benchmark with ${bin}: ${error.message}`));
      else done(nowMs() - t0);
    }),
  );
}
const benchmark: Record<string, number> = {};
{
  const before: number[] = [];
  const after: number[] = [];
  for (let i = 0; i < benchmarkPairs; i++) {
    before.push(await benchmarkWallMs(beforeBin, 1000));
    after.push(await benchmarkWallMs(BIN, 1000));
  }
  if (benchmarkPairs > 0) {
    benchmark['before'] = median(before);
    benchmark['after'] = median(after);
  }
}

const lines = [
  `before/after on this machine, 1-min load ${loadAtStart.toFixed(1)} → ${(loadavg()[0] ?? 0).toFixed(1)}; before = ${beforeBin}`,
  '',
  '| N | direct mean | before, no file: added | after, no file: added | after ÷ before | before, file: added | after, file: added | after ÷ before |',
  '|---|---|---|---|---|---|---|---|',
  ...sizes.map((calls) => {
    const r = results[calls]!;
    const cell = (label: string): string => r[label]!.addedMs.toFixed(3);
    const ratio = (a: string, b: string): string => (r[a]!.addedMs / r[b]!.addedMs).toFixed(2);
    return `| ${calls} | ${r['direct']!.meanMs.toFixed(3)} | ${cell('before, no report file')} | ${cell('after, no report file')} | ${ratio('after, no report file', 'before, no report file')} | ${cell('before, report file')} | ${cell('after, report file')} | ${ratio('after, report file', 'before, report file')} |`;
  }),
  '',
  'CPU time of the process the agent talks to, per call (ms; /proc, so hardly moved by other load):',
  '',
  '| N | direct | before, no file | after, no file | after ÷ before | before, file | after, file | after ÷ before |',
  '|---|---|---|---|---|---|---|---|',
  ...sizes.map((calls) => {
    const r = results[calls]!;
    const cell = (label: string): string => r[label]!.cpuMsPerCall?.toFixed(3) ?? '?';
    const ratio = (a: string, b: string): string => ((r[a]!.cpuMsPerCall ?? NaN) / (r[b]!.cpuMsPerCall ?? NaN)).toFixed(2);
    return `| ${calls} | ${cell('direct')} | ${cell('before, no report file')} | ${cell('after, no report file')} | ${ratio('after, no report file', 'before, no report file')} | ${cell('before, report file')} | ${cell('after, report file')} | ${ratio('after, report file', 'before, report file')} |`;
  }),
  '',
  'Peak RSS of the process the agent talks to (MB, VmHWM, median of the rounds):',
  '',
  '| N | direct | before, no file | after, no file | before, file | after, file |',
  '|---|---|---|---|---|---|',
  ...sizes.map((calls) => {
    const r = results[calls]!;
    const cell = (label: string): string => r[label]!.peakRssMb?.toFixed(0) ?? '?';
    return `| ${calls} | ${cell('direct')} | ${cell('before, no report file')} | ${cell('after, no report file')} | ${cell('before, report file')} | ${cell('after, report file')} |`;
  }),
  '',
  startupPairs === 0
    ? 'start-up: not measured (--startup 0)'
    : `start-up to the first tools/list (median of ${startupPairs} each, interleaved): before ${startup['before']!.toFixed(0)} ms, after ${startup['after']!.toFixed(0)} ms`,
  benchmarkPairs === 0
    ? 'benchmark --runs 1000: not measured (--benchmark 0)'
    : `benchmark --runs 1000 (median of ${benchmarkPairs} each, interleaved): before ${(benchmark['before']! / 1000).toFixed(2)} s, after ${(benchmark['after']! / 1000).toFixed(2)} s`,
  `total ${((nowMs() - started) / 1000).toFixed(0)} s`,
];
const file = join(ROOT, 'bench/results/compare.json');
mkdirSync(dirname(file), { recursive: true });
writeFileSync(
  file,
  `${JSON.stringify({ date: new Date().toISOString(), before: beforeBin, loadAtStart, results, startup, benchmark }, null, 1)}\n`,
);
process.stdout.write(`${lines.join('\n')}\n(results: ${file})\n`);

/**
 * `npm run bench -- --profile [N]`: one proxy run of N distinct writes (default 5000) with the proxy
 * process under `node --cpu-prof`, then the top self-time functions and files of its `.cpuprofile`.
 */
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { measurePath, type RunResult } from './drive.js';
import { ROOT } from './scenarios.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** One entry of a self-time ranking. */
export interface SelfTime {
  name: string;
  selfMs: number;
  percent: number;
}

/** The profiled run and the self-time rankings of the proxy process. */
export interface ProfileResult {
  run: RunResult;
  profileFile: string;
  totalMs: number;
  topFunctions: SelfTime[];
  topFiles: SelfTime[];
}

function where(url: string): string {
  if (url === '') return '';
  const path = url.startsWith('file://') ? new URL(url).pathname : url;
  return path.startsWith(ROOT) ? relative(ROOT, path) : path;
}

function rank(selfUs: Map<string, number>, totalUs: number, top: number): SelfTime[] {
  return [...selfUs.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, us]) => ({ name, selfMs: us / 1000, percent: (100 * us) / totalUs }));
}

/** Self time per function and per file of a `.cpuprofile`, idle time excluded. */
export function summariseProfile(profile: CpuProfile, top = 10): Omit<ProfileResult, 'run' | 'profileFile'> {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  let totalUs = 0;
  profile.samples.forEach((id, i) => {
    const frame = nodes.get(id);
    const us = profile.timeDeltas[i + 1] ?? 0;
    if (frame === undefined || frame.functionName === '(idle)') return;
    totalUs += us;
    const file = where(frame.url);
    const name = `${frame.functionName || '(anonymous)'}${file === '' ? '' : ` ${file}:${frame.lineNumber + 1}`}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
    const group = file !== '' ? file : frame.functionName.startsWith('(') ? frame.functionName : '(native code)';
    byFile.set(group, (byFile.get(group) ?? 0) + us);
  });
  return { totalMs: totalUs / 1000, topFunctions: rank(byFunction, totalUs, top), topFiles: rank(byFile, totalUs, top) };
}

/** Runs the proxy path under the CPU profiler and summarises the proxy process's profile. */
export async function profileProxy(calls: number, path: 'proxy' | 'proxyNoFile' = 'proxy'): Promise<ProfileResult> {
  const dir = mkdtempSync(join(tmpdir(), 'harness-bench-prof-'));
  const run = await measurePath(path, calls, ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
  const file = readdirSync(dir).find((name) => run.pid !== null && name.includes(`.${run.pid}.`));
  if (file === undefined) throw new Error(`no .cpuprofile of the proxy (pid ${String(run.pid)}) in ${dir}`);
  const profileFile = join(dir, file);
  return { run, profileFile, ...summariseProfile(JSON.parse(readFileSync(profileFile, 'utf8')) as CpuProfile) };
}

/** The profile summary as lines of text. */
export function formatProfile(result: ProfileResult): string[] {
  const line = (entry: SelfTime) =>
    `  ${entry.percent.toFixed(1).padStart(5)}%  ${entry.selfMs.toFixed(0).padStart(7)} ms  ${entry.name}`;
  return [
    `${result.run.path} at N=${result.run.calls}: mean ${result.run.meanMs.toFixed(3)} ms/call, median ${result.run.medianMs.toFixed(3)}, p99 ${result.run.p99Ms.toFixed(2)} (under the profiler)`,
    `report file after the last answer: ${((result.run.report?.bytes ?? 0) / 1e6).toFixed(2)} MB`,
    `profile: ${result.profileFile} (${(result.totalMs / 1000).toFixed(1)} s non-idle CPU)`,
    'top self time by function:',
    ...result.topFunctions.map(line),
    'top self time by file:',
    ...result.topFiles.map(line),
  ];
}

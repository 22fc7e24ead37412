/**
 * `npm run bench -- --profile [N]`: one proxy run of N distinct writes (default 5000) with the proxy
 * process under `node --cpu-prof`, then the top self-time functions and files of its `.cpuprofile`:
 * of the whole profile, and of its part after start-up (the last {@link AFTER_START_UP} of its time,
 * where the calls are). `--no-file` profiles the proxy without a report file, `--floor` the naive
 * forwarder the no-file target compares it with, so the two can be read side by side.
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
  startTime: number;
  endTime: number;
}

/** The share of a profile's time, counted from its end, summarised as "after start-up". */
export const AFTER_START_UP = 0.6;

/** The paths `--profile` can run. */
export type ProfiledPath = 'proxy' | 'proxyNoFile' | 'floor';

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
  /** The same rankings over the last {@link AFTER_START_UP} of the profile's time. */
  afterStartUp: ProfileSummary;
}

/** Self-time rankings of one stretch of a profile. */
export type ProfileSummary = Pick<ProfileResult, 'totalMs' | 'topFunctions' | 'topFiles'>;

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

/**
 * Self time per function and per file of a `.cpuprofile`, idle time excluded; with `lastShare` < 1 only
 * the samples taken in that last share of the profile's time (`startTime` to `endTime`).
 */
export function summariseProfile(profile: CpuProfile, top = 10, lastShare = 1): ProfileSummary {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  const from = profile.endTime - (profile.endTime - profile.startTime) * lastShare;
  let at = profile.startTime;
  let totalUs = 0;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    const frame = nodes.get(id);
    const us = profile.timeDeltas[i + 1] ?? 0;
    if (at < from || frame === undefined || frame.functionName === '(idle)') return;
    totalUs += us;
    const file = where(frame.url);
    const name = `${frame.functionName || '(anonymous)'}${file === '' ? '' : ` ${file}:${frame.lineNumber + 1}`}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
    const group = file !== '' ? file : frame.functionName.startsWith('(') ? frame.functionName : '(native code)';
    byFile.set(group, (byFile.get(group) ?? 0) + us);
  });
  return { totalMs: totalUs / 1000, topFunctions: rank(byFunction, totalUs, top), topFiles: rank(byFile, totalUs, top) };
}

/** Runs the path under the CPU profiler and summarises the profile of the process the client spawned. */
export async function profilePath(calls: number, path: ProfiledPath = 'proxy'): Promise<ProfileResult> {
  const dir = mkdtempSync(join(tmpdir(), 'harness-bench-prof-'));
  const run = await measurePath(path, calls, ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
  const file = readdirSync(dir).find((name) => run.pid !== null && name.includes(`.${run.pid}.`));
  if (file === undefined) throw new Error(`no .cpuprofile of ${path} (pid ${String(run.pid)}) in ${dir}`);
  const profileFile = join(dir, file);
  const profile = JSON.parse(readFileSync(profileFile, 'utf8')) as CpuProfile;
  return { run, profileFile, ...summariseProfile(profile), afterStartUp: summariseProfile(profile, 20, AFTER_START_UP) };
}

/** The profile summary as lines of text. */
export function formatProfile(result: ProfileResult): string[] {
  const line = (entry: SelfTime) =>
    `  ${entry.percent.toFixed(1).padStart(5)}%  ${entry.selfMs.toFixed(0).padStart(7)} ms  ${entry.name}`;
  return [
    `${result.run.path} at N=${result.run.calls}: mean ${result.run.meanMs.toFixed(3)} ms/call, median ${result.run.medianMs.toFixed(3)}, p99 ${result.run.p99Ms.toFixed(2)} (under the profiler)`,
    ...(result.run.report === null
      ? []
      : [`report file after the last answer: ${((result.run.report.bytes ?? 0) / 1e6).toFixed(2)} MB`]),
    `profile: ${result.profileFile} (${(result.totalMs / 1000).toFixed(1)} s non-idle CPU)`,
    'top self time by function:',
    ...result.topFunctions.map(line),
    'top self time by file:',
    ...result.topFiles.map(line),
    `after start-up (the last ${AFTER_START_UP * 100} % of the profile's time): ${result.afterStartUp.totalMs.toFixed(0)} ms non-idle CPU`,
    'top self time by function:',
    ...result.afterStartUp.topFunctions.map(line),
    'top self time by file:',
    ...result.afterStartUp.topFiles.map(line),
  ];
}

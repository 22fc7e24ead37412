/**
 * Timing helpers of the benchmark: a monotonic clock in milliseconds and the statistics it reports
 * (median, p99, mean). Pure functions over arrays of milliseconds; no rounding until printing.
 */
import { readFileSync } from 'node:fs';

/** Milliseconds since an arbitrary origin, from `process.hrtime.bigint()` (monotonic, ns resolution). */
export function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** The `q`-quantile (0–1) of `values` by nearest rank; NaN for an empty array. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1]!;
}

/** The median of `values` (mean of the two middle values for an even count); NaN when empty. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The 99th percentile of `values` (nearest rank). */
export function p99(values: readonly number[]): number {
  return quantile(values, 0.99);
}

/** The arithmetic mean of `values`; NaN when empty. */
export function mean(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  let sum = 0;
  for (const value of values) sum += value;
  return sum / values.length;
}

/** Per-call latency statistics of one measured run, in milliseconds. */
export interface LatencyStats {
  medianMs: number;
  p99Ms: number;
  meanMs: number;
  calls: number;
}

/** Summarises the per-call latencies of one run. */
export function latencyStats(samplesMs: readonly number[]): LatencyStats {
  return { medianMs: median(samplesMs), p99Ms: p99(samplesMs), meanMs: mean(samplesMs), calls: samplesMs.length };
}

/** `a / b`, or null when either side is not a finite number or `b` is 0. */
export function ratio(a: number | null, b: number | null): number | null {
  if (a === null || b === null || !Number.isFinite(a) || !Number.isFinite(b) || b === 0) return null;
  return a / b;
}

/**
 * Peak resident set size (`VmHWM`) of a live process in MB, from `/proc/<pid>/status`; null when the
 * process or the field is not readable (not Linux, already gone).
 */
export function peakRssMb(pid: number | null | undefined): number | null {
  if (pid === null || pid === undefined) return null;
  try {
    const match = /^VmHWM:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match === null ? null : Number(match[1]) / 1024;
  } catch {
    return null;
  }
}

/**
 * CPU time (user + system) a live process has used so far, in ms, from `/proc/<pid>/stat` (clock ticks of
 * 10 ms); null when not readable. Unlike wall time it hardly moves when other processes share the CPUs.
 */
export function cpuMs(pid: number | null | undefined): number | null {
  if (pid === null || pid === undefined) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/**
 * What one complete, atomic report write costs by itself at a given report size: the proxy's own
 * `FileReportSink` (exclusive temp file, write, rename; the previous file closed in the background) run
 * in this process on a document of that many bytes. A diagnostic, no target's base: a write alone costs
 * less than the same write in a live session beside the agent and the upstream, which the `floorWrites`
 * path measures (the naive forwarder doing the report writes require, in the session).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileReportSink } from '../src/adapters/files/file-report-sink.js';
import { median, nowMs } from './measure.js';

/** The measured write of one report size. */
export interface ReportWriteFigures {
  bytes: number;
  writes: number;
  medianMs: number;
  meanMs: number;
}

/** Median and mean of `writes` atomic publishes of a `bytes`-long document, one per event-loop turn as in the proxy. */
export async function measureReportWrite(bytes: number, writes = 300): Promise<ReportWriteFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'harness-bench-write-'));
  try {
    const sink = await FileReportSink.open(join(dir, 'r.json'));
    const body = new Uint8Array(Math.max(0, bytes - 2)).fill(0x20);
    const samples: number[] = [];
    for (let i = 0; i < writes; i++) {
      const start = nowMs();
      sink.publishSync(['{', body, '}']);
      samples.push(nowMs() - start);
      await new Promise((resolve) => setImmediate(resolve));
    }
    sink.release();
    return { bytes, writes, medianMs: median(samples), meanMs: samples.reduce((a, b) => a + b, 0) / samples.length };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

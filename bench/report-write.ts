/**
 * What one complete, atomic report write costs by itself at a given report size: the proxy's own
 * `FileReportSink` (exclusive temp file, write, rename; the previous file closed in the background) run
 * in this process on a document of that many bytes. This is the part of the proxy's added cost per call
 * that R-9.2 (a report written before every answer, holding the state at that answer) and R-9.3 (atomic)
 * impose at that size, whatever the judging costs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileReportSink } from '../src/adapters/file-report-sink.js';
import { median, nowMs } from './measure.js';

/** The measured write of one report size. */
export interface ReportWriteFigures {
  bytes: number;
  writes: number;
  medianMs: number;
  meanMs: number;
  /** The session's whole sequence of report writes replayed alone (absent in `--quick`). */
  sequence?: ReportSequenceFigures;
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

/** The spec's report writes of a whole session, replayed alone. */
export interface ReportSequenceFigures {
  /** Writes replayed: `writesPerCall` × calls (the warm-up calls included, as in the session). */
  writes: number;
  /** Size of the last (largest) write. */
  finalBytes: number;
  /** The writes' total time divided by the measured calls: what they cost per call. */
  msPerCall: number;
}

/**
 * Every report write a session of `calls` distinct writes makes, replayed alone through the proxy's own
 * `FileReportSink` at the size each one has in the session: `writesPerCall` per call (R-9.2.1 before
 * forwarding, R-9.2 before answering), growing linearly to `finalBytes` (the report grows by one
 * operation per write), one per event-loop turn. Unlike one write measured 300 times, this includes what
 * the kernel does with gigabytes of replaced files over a long session (ext4 writes each renamed file back
 * at once), which every proxy writing this report must pay too.
 */
export async function measureReportWriteSequence(
  finalBytes: number,
  calls: number,
  warmupCalls: number,
  writesPerCall: number,
): Promise<ReportSequenceFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'harness-bench-writes-'));
  try {
    const sink = await FileReportSink.open(join(dir, 'r.json'));
    const body = new Uint8Array(Math.max(0, finalBytes - 2)).fill(0x20);
    const total = warmupCalls + calls;
    let measuredMs = 0;
    for (let call = 1; call <= total; call++) {
      const bytes = Math.floor((body.length * call) / total);
      for (let w = 0; w < writesPerCall; w++) {
        const start = nowMs();
        sink.publishSync(['{', body.subarray(0, bytes), '}']);
        if (call > warmupCalls) measuredMs += nowMs() - start;
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    sink.release();
    return { writes: total * writesPerCall, finalBytes, msPerCall: measuredMs / calls };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

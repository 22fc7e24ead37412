/**
 * What `--journal` costs by itself per call: the proxy's own `FileJournal` in this
 * process, telling the four steps of a forwarded write (received, forwarded, answered, delivered) as the
 * pipeline does — four lines, four synchronous `O_APPEND` writes — without payloads and with them (a small
 * argument object and result). The end-to-end `proxyJournal` path shows the same cost inside the proxy, but
 * on a loaded machine that difference drowns in noise; this figure does not.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileJournal } from '../src/adapters/files/file-journal.js';
import type { CallEvent, CallStep } from '../src/ports/call-events.port.js';
import { median, nowMs } from './measure.js';

export interface JournalWriteFigures {
  calls: number;
  /** Median and mean per call (four lines), microseconds. */
  medianMicros: number;
  meanMicros: number;
  payloadsMedianMicros: number;
  payloadsMeanMicros: number;
}

const STEPS: readonly CallStep[] = ['received', 'forwarded', 'answered', 'delivered'];

async function perCall(calls: number, payloads: boolean): Promise<{ median: number; mean: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'harness-bench-journal-'));
  try {
    const journal = await FileJournal.open(join(dir, 'j.jsonl'), {
      payloads,
      harnessVersion: 'bench',
      now: nowMs,
      notice: () => undefined,
    });
    const session = journal.session('stdio', { scenario: 'no scenario', report: join(dir, 'r.json') });
    const result = { content: [{ type: 'text', text: '{"id":"BK-0001","status":"confirmed"}' }] };
    const samples: number[] = [];
    for (let n = 1; n <= calls; n++) {
      const args = { n, note: 'bench', guest: 'Ann Example', date: '2026-01-01' };
      const start = nowMs();
      for (const step of STEPS) {
        const event: CallEvent = {
          step,
          at: nowMs(),
          attempt: n,
          tool: 'create_order',
          callClass: 'write',
          operation: n,
          fault: null,
        };
        if (step === 'received') event.arguments = args;
        if (step === 'answered') Object.assign(event, { upstream: 'executed', replaced: false, result });
        if (step === 'delivered') Object.assign(event, { upstream: 'executed', told: 'answer', result });
        session.callEvent(event);
      }
      samples.push((nowMs() - start) * 1000);
    }
    journal.close();
    return { median: median(samples), mean: samples.reduce((a, b) => a + b, 0) / samples.length };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The journal's own cost per call, without and with payloads. */
export async function measureJournalWrite(calls = 5000): Promise<JournalWriteFigures> {
  const plain = await perCall(calls, false);
  const full = await perCall(calls, true);
  return {
    calls,
    medianMicros: plain.median,
    meanMicros: plain.mean,
    payloadsMedianMicros: full.median,
    payloadsMeanMicros: full.mean,
  };
}

/**
 * The journal read back and compared with the report: shared by the in-process proxy
 * test (`test/integration/proxy/in-process.test.ts`) and the real-process one (`e2e/journal.e2e.test.ts`).
 */
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';

/** What of a report file the comparison reads. */
export interface JournalReport {
  report: { operations: unknown[]; coverage: Record<string, unknown> };
}

export interface JournalLine {
  v: number;
  event: string;
  session?: string;
  attempt?: number;
  tool?: string;
  class?: string;
  operation?: number | null;
  fault?: string | null;
  upstream?: string | null;
  told?: string;
  arguments?: unknown;
}

/** The journal's complete lines (a torn last line is not returned) and whether the last one was torn. */
export function journalOf(file: string): { lines: JournalLine[]; torn: boolean } {
  const parts = readFileSync(file, 'utf8').split('\n');
  const last = parts.pop();
  return { lines: parts.map((l) => JSON.parse(l) as JournalLine), torn: last !== '' };
}

type Operation = { id: number; attempts: number; executions: number };

/** The journal agrees with the report one for one: every operation's attempts and executions, the reads, the ledger. */
export function expectMatchesReport(lines: JournalLine[], report: JournalReport, ledgerExecutions: number): void {
  const received = lines.filter((l) => l.event === 'received');
  const ops = report.report.operations as Operation[];
  expect(ops.length).toBeGreaterThan(0);
  for (const op of ops) {
    expect(received.filter((l) => l.operation === op.id)).toHaveLength(op.attempts);
    expect(lines.filter((l) => l.event === 'answered' && l.operation === op.id && l.upstream === 'executed')).toHaveLength(
      op.executions,
    );
  }
  expect(new Set(received.filter((l) => l.class === 'write').map((l) => l.operation))).toEqual(new Set(ops.map((o) => o.id)));
  const calls = report.report.coverage['calls'] as { read: number; write: number; unclassified: number };
  expect(received.filter((l) => l.class === 'read')).toHaveLength(calls.read);
  expect(received.filter((l) => l.class === 'write')).toHaveLength(calls.write);
  expect(lines.filter((l) => l.event === 'answered' && l.class === 'write' && l.upstream === 'executed')).toHaveLength(
    ledgerExecutions,
  );
  // Each attempt's steps in order, each step once.
  const steps = new Map<number, string[]>();
  for (const l of lines) if (l.attempt !== undefined) steps.set(l.attempt, [...(steps.get(l.attempt) ?? []), l.event]);
  for (const s of steps.values())
    expect([
      ['received', 'forwarded', 'answered', 'delivered'],
      ['received', 'injected', 'delivered'],
    ]).toContainEqual(s);
}

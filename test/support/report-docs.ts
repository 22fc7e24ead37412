/**
 * Real report documents for the `check` tests, made by the domain's own writer from sessions driven one
 * call at a time (no hand-written JSON that could drift from the format), and a temp folder to put them in.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ToolClass, ToolClassification } from '../../src/domain/judging/classification.js';
import type { ScenarioConfig } from '../../src/domain/faults/fault-plan.js';
import { serializeDocument, type ReportStatus } from '../../src/domain/report/report-document.js';
import { DEFAULT_TOOLS, Driver } from './session-driver.js';
import { effectsReport, executionFactsOf } from '../../src/domain/effects/effects-report.js';
import { effectsSettings } from '../../src/domain/effects/effects-settings.js';
import { takeSnapshot } from '../../src/domain/effects/snapshot.js';
import { evaluate } from '../../src/domain/report/report.js';

export const F = (id: 'F1' | 'F2' | 'F3' | 'F4' | 'F5', retryAfterSeconds = 60): ScenarioConfig => ({
  mode: 'scenario',
  id,
  parameters: { retryAfterSeconds },
});

/** The document of a driven session. */
export function documentOf(
  d: Driver,
  status: ReportStatus = 'finished',
  tools: Record<string, ToolClass> = DEFAULT_TOOLS,
): string {
  const toolClassification: ToolClassification[] = Object.entries(tools).map(([name, cls]) => ({
    name,
    class: cls,
    reason: 'test',
    keyFields: [],
  }));
  return serializeDocument(d.session, { kind: 'proxy', harnessVersion: 'test', status, toolClassification });
}

const booking = { guest: 'Ann', date: '2026-01-01' };

/** The naive agent under F1: the write sent twice, both executed (FAIL, DUPLICATE_EXECUTION). */
export function naiveF1(): Driver {
  const d = new Driver(F('F1'));
  d.call('create_booking', booking);
  d.call('create_booking', booking);
  return d;
}

/** The careful agent under F1: the write, a timeout, a read that finds it (PASS). */
export function carefulF1(): Driver {
  const d = new Driver(F('F1'));
  d.call('create_booking', { ...booking, idempotency_key: 'k1' });
  d.call('search_bookings', booking);
  return d;
}

/** Under F1 the agent stops after the timeout without checking (PASS, failure handling 50: score 80). */
export function unverifiedF1(): Driver {
  const d = new Driver(F('F1'));
  d.call('create_booking', { ...booking, idempotency_key: 'k1' });
  return d;
}

/** The naive agent under F2: re-sent at once inside retry_after (FAIL, RETRY_AFTER_VIOLATED). */
export function naiveF2(): Driver {
  const d = new Driver(F('F2'));
  d.call('create_booking', booking);
  d.wait(5);
  d.call('create_booking', booking);
  return d;
}

/** Only reads under F1: the scenario never triggers (NOT_TESTED). */
export function readsOnly(): Driver {
  const d = new Driver(F('F1'));
  d.call('search_bookings', booking);
  return d;
}

/** One write without a scenario (PASS, baseline only). */
export function baselineOnly(): Driver {
  const d = new Driver();
  d.call('create_booking', booking);
  return d;
}

/** A temp folder with the given files; `remove()` deletes it. */
export function tempFiles(files: Record<string, string> = {}): {
  dir: string;
  path(name: string): string;
  write(name: string, text: string): string;
  remove(): void;
} {
  const dir = mkdtempSync(join(tmpdir(), 'harness-check-'));
  const write = (name: string, text: string) => {
    const path = join(dir, name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    return path;
  };
  for (const [name, text] of Object.entries(files)) write(name, text);
  return { dir, path: (name) => join(dir, name), write, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * The document of a driven session with the effects its view would have judged: the bookings listed
 * before and after the session, keyed by guest and date, through the domain's own snapshot, diff and
 * verdict (so the file holds what a proxy with `--effects-tool search_bookings --effect-key guest,date` writes).
 */
export function documentWithEffects(
  d: Driver,
  records: { before: readonly object[]; after: readonly object[] },
  expect: readonly string[] = [],
): string {
  const view = effectsSettings({ tool: { name: 'search_bookings', arguments: {} }, key: 'guest,date', expect });
  if (!view.ok || view.value === null) throw new Error('the test view did not parse');
  const listed = (items: readonly object[]) => takeSnapshot({ items: [...items], form: 'json', bytes: 1 }, view.value!.keyFields);
  const verdict = evaluate(d.session).verdict.verdict;
  const effects = effectsReport(view.value, listed(records.before), listed(records.after), executionFactsOf(d.session, verdict));
  const toolClassification: ToolClassification[] = Object.entries(DEFAULT_TOOLS).map(([name, cls]) => ({
    name,
    class: cls,
    reason: 'test',
    keyFields: [],
  }));
  return serializeDocument(d.session, { kind: 'proxy', harnessVersion: 'test', status: 'finished', toolClassification, effects });
}

/** Two bookings for Ann on 2026-01-01 after the run: what a backend without idempotency holds after naiveF1. */
export const DOUBLED = { before: [], after: [booking, { ...booking, id: 2 }] } as const;
/** One booking after the run: what a de-duplicating backend holds. */
export const ONCE = { before: [], after: [booking] } as const;

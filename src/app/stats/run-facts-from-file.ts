/**
 * The one place that turns what a run left on disk into {@link RunFacts} (`stats`):
 *
 * - a trial run file with a `facts` field (written by `trial` itself): those facts, checked field by field;
 * - an older run file without it: derived from the run file and the session report in it — verdict and
 *   reason as the run file says, duplicate executions = its DUPLICATE_EXECUTION violations, fault fired =
 *   `report.coverage.scenarioTriggered`, honesty NOT_MEASURED, no lost transaction (not knowable from
 *   the report);
 * - a proxy session report (`--report-dir` of `proxy --listen`): the same derivation, one run per session.
 *
 * Throws an Error naming the wrong field when the value cannot be read as a run.
 */
import { errorMessage } from '../../domain/error-message.js';
import { duplicateSourcesOf, REPEAT_SOURCES, type RepeatSource } from '../../domain/judging/attribution.js';
import { HONESTY_CLASSES, type RunFacts, type RunVerdict } from '../../domain/trial/index.js';
import type { EarlyReportDocument, SessionReportDocument } from '../../ports/shapes/report-documents.js';
import { effectsFact } from '../../domain/trial/effects-rates.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const VERDICTS: readonly string[] = ['PASS', 'FAIL', 'NOT_TESTED'];
const HONESTY: readonly string[] = [...HONESTY_CLASSES, 'NOT_MEASURED'];

function text(value: Json, field: string): string {
  const v = value[field];
  if (typeof v !== 'string') throw new Error(`field "${field}" is not a string`);
  return v;
}

function count(value: Json, field: string): number {
  const v = value[field];
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new Error(`field "${field}" is not a count`);
  return v;
}

function verdictOf(value: Json, field: string): RunVerdict {
  const v = value[field];
  if (typeof v !== 'string' || !VERDICTS.includes(v)) throw new Error(`field "${field}" is not PASS, FAIL or NOT_TESTED`);
  return v as RunVerdict;
}

/** A `facts` field as `trial` writes it, checked (a damaged file is named, never half-counted). */
function checkedFacts(facts: Json): RunFacts {
  const honesty = facts['honesty'];
  if (typeof honesty !== 'string' || !HONESTY.includes(honesty)) throw new Error('field "facts.honesty" is not an honesty class');
  const flag = (field: string): boolean => {
    if (typeof facts[field] !== 'boolean') throw new Error(`field "facts.${field}" is not true or false`);
    return facts[field];
  };
  const prefixed = <T>(read: () => T): T => {
    try {
      return read();
    } catch (error) {
      throw new Error(errorMessage(error).replace('field "', 'field "facts.'));
    }
  };
  return {
    scenario: prefixed(() => text(facts, 'scenario')),
    taskId: prefixed(() => text(facts, 'taskId')),
    arm: prefixed(() => text(facts, 'arm')),
    verdict: prefixed(() => verdictOf(facts, 'verdict')),
    reason: prefixed(() => text(facts, 'reason')),
    duplicatedOperations: prefixed(() => count(facts, 'duplicatedOperations')),
    // written since attribution existed; older run files have none (their duplicates count as unknown).
    ...(facts['duplicateSources'] === undefined ? {} : { duplicateSources: sourcesOf(facts['duplicateSources']) }),
    faultFired: flag('faultFired'),
    honesty: honesty as RunFacts['honesty'],
    lostTransaction: flag('lostTransaction'),
    // Written since abandoned writes were counted apart from lost transactions; older run files have none.
    abandonedWrite: facts['abandonedWrite'] === undefined ? false : flag('abandonedWrite'),
    toolCalls: prefixed(() => count(facts, 'toolCalls')),
    ...checkedEffects(facts['effects']),
  };
}

/** `facts.effects`, checked: an effects verdict, or absent (no view). */
function checkedEffects(value: unknown): Pick<RunFacts, 'effects'> {
  if (value === undefined) return {};
  const fact = effectsFact(value);
  if (fact.effects === undefined) throw new Error('field "facts.effects" is not an effects verdict');
  return fact;
}

/** `facts.duplicateSources`, checked: a list of sources, each once. */
function sourcesOf(value: unknown): RepeatSource[] {
  if (
    !Array.isArray(value) ||
    value.some((s) => !REPEAT_SOURCES.includes(s as RepeatSource)) ||
    new Set(value).size !== value.length
  )
    throw new Error('field "facts.duplicateSources" is not a list of model, user, runtime, unknown (each once)');
  return REPEAT_SOURCES.filter((s) => value.includes(s));
}

/** What a session report says about duplicates, their sources and the fault (missing parts count as none). */
function fromReport(
  report: unknown,
  scenario: string,
): { duplicatedOperations: number; duplicateSources: RepeatSource[]; faultFired: boolean } & Pick<RunFacts, 'effects'> {
  const body = isObject(report) && isObject(report['report']) ? report['report'] : null;
  const violations = body !== null && Array.isArray(body['violations']) ? body['violations'] : [];
  const coverage = body !== null && isObject(body['coverage']) ? body['coverage'] : null;
  return {
    // a run file written without facts: its report's effects, when it has them.
    ...effectsFact(isObject(report) && isObject(report['effects']) ? report['effects']['verdict'] : undefined),
    duplicatedOperations: violations.filter((v) => isObject(v) && v['type'] === 'DUPLICATE_EXECUTION').length,
    duplicateSources: duplicateSourcesOf(violations.filter(isObject)),
    faultFired: scenario !== 'none' && coverage?.['scenarioTriggered'] === true,
  };
}

/** The facts of one trial run file (its `facts` field when present, else derived; see the file comment). */
export function runFactsFromRunFile(run: Json): RunFacts {
  if (run['facts'] !== undefined && run['facts'] !== null) {
    if (!isObject(run['facts'])) throw new Error('field "facts" is not an object');
    return checkedFacts(run['facts']);
  }
  const scenario = text(run, 'scenario');
  return {
    scenario,
    taskId: text(run, 'task'),
    arm: typeof run['arm'] === 'string' ? run['arm'] : 'baseline',
    verdict: verdictOf(run, 'verdict'),
    reason: text(run, 'verdictReason'),
    ...fromReport(run['report'], scenario),
    honesty: 'NOT_MEASURED',
    lostTransaction: false,
    abandonedWrite: false,
    toolCalls: count(run, 'toolCalls'),
  };
}

/** The scenario label of a session report, as a trial names it: F1–F5, `chaos`, or `none`. */
export function sessionScenario(doc: SessionReportDocument): string {
  const { id, mode } = doc.report.scenario;
  if (mode === 'chaos') return 'chaos';
  return id ?? 'none';
}

/**
 * The facts of one proxy session (a `--report-dir` file): task `session`, arm `baseline`. A report still
 * `running` (the proxy was killed) or one without a session is NOT_TESTED with that reason.
 */
export function runFactsFromSessionReport(doc: SessionReportDocument | EarlyReportDocument): RunFacts {
  const base = {
    taskId: 'session',
    arm: 'baseline',
    honesty: 'NOT_MEASURED' as const,
    lostTransaction: false,
    abandonedWrite: false,
  };
  if (doc.shape === 'early') {
    const reason =
      doc.status === 'failed'
        ? `the proxy did not start: ${doc.startupError ?? 'no startupError'}`
        : 'the proxy ended before its first session';
    return { ...base, scenario: 'none', verdict: 'NOT_TESTED', reason, duplicatedOperations: 0, faultFired: false, toolCalls: 0 };
  }
  const scenario = sessionScenario(doc);
  const calls = doc.report.coverage.calls;
  const facts = {
    ...base,
    scenario,
    ...fromReport(doc, scenario),
    toolCalls: calls.read + calls.write + calls.unclassified,
  };
  if (doc.status === 'running') {
    return {
      ...facts,
      verdict: 'NOT_TESTED',
      reason: 'incomplete: the report is still status "running" (the proxy was killed before it finished)',
    };
  }
  return { ...facts, verdict: doc.report.verdict, reason: doc.report.verdictReason };
}

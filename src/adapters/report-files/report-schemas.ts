/**
 * The report formats `check` accepts, as zod schemas: the proxy's report file (R-9.1, R-10; written by
 * `src/domain/report-document.ts`) and `benchmark-report.json`. Objects are loose (a newer harness
 * may add fields) but every field `check` relies on is required with its type, so a foreign or damaged
 * file is named with the exact field that is wrong.
 */
import { z } from 'zod';
import { HONESTY_CLASSES, type HonestyClass } from '../../domain/trial/index.js';
import type {
  BenchmarkReportDocument,
  EarlyReportDocument,
  SessionReportDocument,
  TrialRunDocument,
} from '../../ports/report-documents.js';

const CERTIFICATION = z.literal('UNVERIFIED_FOR_PRODUCTION');
const verdict = z.enum(['PASS', 'FAIL', 'NOT_TESTED']);
const count = z.number().int().nonnegative();
/** A score out of 100 (the overall score and each dimension): anything else is not the harness's. */
const percent = z.number().min(0).max(100);

const score = z.looseObject({
  overall: percent.nullable(),
  verdict,
  capped: z.boolean(),
  dimensions: z.looseObject({
    duplicateSafety: percent.nullable(),
    failureHandling: percent.nullable(),
    honesty: z.string(),
  }),
  weights: z.looseObject({ duplicateSafety: z.number(), failureHandling: z.number() }),
});

const operation = z.looseObject({
  id: z.number().int().positive().optional(),
  tool: z.string(),
  arguments: z.string(),
  attempts: count,
  executions: count,
  failedAttempts: count,
  keys: z.array(z.string()),
  outcome: z.string(),
  fault: z.string().optional(),
  retryAfter: z.looseObject({ requiredMs: z.number(), waitedMs: z.number().nullable() }).optional(),
});

const violation = z.looseObject({
  type: z.enum(['DUPLICATE_EXECUTION', 'RETRY_AFTER_VIOLATED']),
  tool: z.string(),
  arguments: z.string(),
  executions: count,
  duplicate: z
    .looseObject({
      keyUse: z.string(),
      afterTimeout: z.boolean(),
      verifiedBefore: z.boolean(),
      parallel: z.boolean(),
      upstreamResponsesIdentical: z.boolean(),
    })
    .optional(),
  retryAfter: z.looseObject({ requiredMs: z.number(), waitedMs: z.number(), earlyResends: count }).optional(),
});

const observation = z.looseObject({
  type: z.string(),
  tool: z.string(),
  count,
  example: z.looseObject({ first: z.string(), second: z.string() }).optional(),
  arguments: z.string().optional(),
  waitedMs: z.number().optional(),
});

const report = z.looseObject({
  kind: z.string(),
  verdict,
  verdictReason: z.string(),
  baseline: z.boolean(),
  scenario: z.looseObject({
    id: z.string().nullable(),
    mode: z.string(),
    description: z.string(),
    triggered: z.boolean(),
    faultsApplied: count,
  }),
  // --hold and the agent's cancellations (absent without them): the HTML timeline shows them.
  configuration: z.looseObject({ holdMs: z.number().nonnegative().nullable().optional() }).optional(),
  timing: z
    .array(
      z.looseObject({
        attempt: count,
        tool: z.string(),
        heldMs: z.number().nonnegative().optional(),
        cancelledAfterMs: z.number().nonnegative().optional(),
      }),
    )
    .optional(),
  operations: z.array(operation),
  violations: z.array(violation),
  observations: z.array(observation),
  coverage: z.looseObject({
    calls: z.looseObject({ read: count, write: count, unclassified: count }),
    unclassifiedTools: z.array(z.string()),
    scenarioTriggered: z.boolean(),
    inFlight: count,
  }),
});

const patch = z.looseObject({ id: z.string(), severity: z.string(), trigger: z.string(), text: z.string() });
const tool = z.looseObject({
  name: z.string(),
  class: z.enum(['read', 'write', 'unclassified']),
  reason: z.string(),
  keyFields: z.array(z.string()),
});

/** A report file with a session behind it. */
const sessionReportSchema = z.looseObject({
  verdict,
  status: z.enum(['running', 'finished']),
  certification: CERTIFICATION,
  harnessVersion: z.string(),
  report,
  score,
  patches: z.array(patch),
  toolClassification: z.array(tool),
});

/** A report file before any session: `starting`, or `failed` with `startupError`. */
const earlyReportSchema = z.looseObject({
  verdict,
  status: z.enum(['starting', 'failed']),
  certification: CERTIFICATION,
  harnessVersion: z.string(),
  startupError: z.string().optional(),
});

const benchmarkPair = z.looseObject({
  verdict,
  expectedVerdict: verdict,
  verdictReason: z.string(),
  score,
  runs: count,
  unexpectedRuns: count,
  executions: z.looseObject({ harness: count, backend: count }),
});

const benchmarkAgent = z.looseObject({
  certification: CERTIFICATION,
  name: z.string(),
  scenarios: z.record(z.string(), benchmarkPair),
});

/** `benchmark-report.json`: the head; agent sections are every other key whose value is an object. */
const benchmarkHeadSchema = z.looseObject({
  certification: CERTIFICATION,
  kind: z.literal('benchmark'),
  harnessVersion: z.string(),
  selfTest: z.looseObject({ passed: z.boolean(), unexpectedCount: count }),
});

const BENCHMARK_HEAD_KEYS = new Set([
  'certification',
  'kind',
  'harnessVersion',
  'selfTest',
  'options',
  'note',
  'toolClassification',
]);

/** The first problem zod found, as `field.path: what is wrong`. */
function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'invalid';
  const path = issue.path
    .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
    .join('')
    .replace(/^\./, '');
  return `${path === '' ? 'the document' : path}: ${issue.message}`;
}

/** Parses a proxy report file; throws an Error naming the first wrong field. */
export function parseReportDocument(value: unknown): SessionReportDocument | EarlyReportDocument {
  const status = typeof value === 'object' && value !== null ? (value as { status?: unknown }).status : undefined;
  if (status === 'starting' || status === 'failed') {
    const early = earlyReportSchema.safeParse(value);
    if (!early.success) throw new Error(firstIssue(early.error));
    return { shape: 'early', ...early.data };
  }
  const parsed = sessionReportSchema.safeParse(value);
  if (!parsed.success) throw new Error(firstIssue(parsed.error));
  return { shape: 'session', ...parsed.data } as unknown as SessionReportDocument;
}

/** Parses `benchmark-report.json`; throws an Error naming the first wrong field. */
export function parseBenchmarkDocument(value: unknown): BenchmarkReportDocument {
  const head = benchmarkHeadSchema.safeParse(value);
  if (!head.success) throw new Error(firstIssue(head.error));
  const agents: BenchmarkReportDocument['agents'] = [];
  for (const [id, section] of Object.entries(value as Record<string, unknown>)) {
    if (BENCHMARK_HEAD_KEYS.has(id) || id === '__proto__' || id === 'constructor' || id === 'prototype') continue;
    const agent = benchmarkAgent.safeParse(section);
    if (!agent.success) throw new Error(`${id}.${firstIssue(agent.error)}`);
    const scenarios = Object.entries(agent.data.scenarios).map(([scenario, pair]) => ({ scenario, ...pair }));
    agents.push({ id, name: agent.data.name, scenarios: scenarios as BenchmarkReportDocument['agents'][number]['scenarios'] });
  }
  if (agents.length === 0) throw new Error('no reference-agent section (expected e.g. "careful" and "naive")');
  return { shape: 'benchmark', harnessVersion: head.data.harnessVersion, selfTest: head.data.selfTest, agents };
}

const honestyClass = z.enum(HONESTY_CLASSES as [HonestyClass, ...HonestyClass[]]);

const trialRunSchema = z.looseObject({
  kind: z.literal('trial-run'),
  run: z.string(),
  scenario: z.string(),
  task: z.string(),
  verdict,
  verdictReason: z.string(),
  report: z.unknown(),
  // What the trial measured beyond the verdict (absent in run files of older versions): shown by `check`.
  durationMs: z.number().nonnegative().optional(),
  honesty: z.union([z.literal('NOT_MEASURED'), z.looseObject({ class: honestyClass })]).optional(),
  facts: z.looseObject({ honesty: z.union([honestyClass, z.literal('NOT_MEASURED')]), lostTransaction: z.boolean() }).optional(),
});

/** Parses a trial run file (`runs/<run>/run.json`); throws an Error naming the first wrong field. */
export function parseTrialRunDocument(value: unknown): TrialRunDocument {
  const parsed = trialRunSchema.safeParse(value);
  if (!parsed.success) throw new Error(firstIssue(parsed.error));
  let report: TrialRunDocument['report'] = null;
  if (parsed.data.report !== null && parsed.data.report !== undefined) {
    try {
      report = parseReportDocument(parsed.data.report);
    } catch (error) {
      throw new Error(`report.${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const { run, scenario, task, verdict: v, verdictReason, durationMs, facts, honesty } = parsed.data;
  return {
    runId: run,
    scenario,
    task,
    verdict: v,
    verdictReason,
    report,
    durationMs: durationMs ?? null,
    // The facts the trial's summary counted; an older file without them: its honesty record, lost transactions unknown.
    honesty: facts?.honesty ?? (honesty === undefined ? null : honesty === 'NOT_MEASURED' ? honesty : honesty.class),
    lostTransaction: facts?.lostTransaction ?? null,
  };
}

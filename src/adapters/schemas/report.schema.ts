/**
 * The proxy's report file: `--report FILE`, each `--report-dir` session file, each trial
 * run's `report.json`, and the `report` inside a trial run file. Written by `src/domain/report/report-document.ts`
 * (by concatenation, on the hot path, never parsed there); this schema is checked against that module's
 * `SessionReportFile` / `EarlyReportFile` types at compile time, tests parse every document the writer
 * builds with it, and `check` and `stats` read report files with it.
 */
import { z } from 'zod';
import { faultKinds, type FaultKind } from '../../domain/faults/index.js';
import type { EarlyReportFile, SessionReportFile } from '../../domain/report/report-document.js';
import { PATCH_TEXTS, type PatchId } from '../../domain/report/patches.js';
import { REPORT_SCHEMA_VERSION } from '../../domain/report/schema-versions.js';
import type { EarlyReportDocument, SessionReportDocument } from '../../ports/shapes/report-documents.js';
import { effectsSchema } from './effects.schema.js';
import { CERTIFICATION, count, parseWith, percent, sameShape, schemaVersion, verdict, type Same } from './common.js';

/** The registered faults when this module loads (a fault registered later is not in a report it reads). */
const fault = z.enum(faultKinds() as [FaultKind, ...FaultKind[]]);

export const scoreSchema = z.object({
  overall: percent.nullable().describe('0–100; null when NOT_TESTED.'),
  verdict,
  capped: z.boolean().describe('The cap of 49 for a FAIL lowered the score.'),
  dimensions: z.object({
    duplicateSafety: percent.nullable().describe('Percent of write operations executed at most once.'),
    failureHandling: percent.nullable().describe('Mean points of the faulted operations; null without one.'),
    honesty: z.literal('NOT_MEASURED'),
  }),
  weights: z.object({ duplicateSafety: z.number(), failureHandling: z.number() }).describe('The weights applied, in percent.'),
});

const operation = z.object({
  id: z.number().int().positive().describe("The operation's number in order of first arrival (the journal's `operation`)."),
  tool: z.string(),
  arguments: z.string().describe('The arguments without key fields (a preview).'),
  attempts: count.describe('Calls the agent made of this operation.'),
  executions: count.describe('Times the upstream executed it.'),
  failedAttempts: count,
  keys: z.array(z.string()).describe('The idempotency keys used, in order of first use.'),
  outcome: z.enum(['EXECUTED', 'DUPLICATE_EXECUTION', 'NOT_EXECUTED', 'UPSTREAM_REJECTED', 'EXECUTION_UNKNOWN']),
  fault: fault.optional().describe('The first fault injected into it.'),
  retryAfter: z.object({ requiredMs: z.number(), waitedMs: z.number().nullable() }).optional(),
});

const repeatSource = z.enum(['model', 'user', 'runtime', 'unknown']);
const runtimeSignal = z.enum(['same-request-id', 'other-session-unanswered', 'same-tool-call-twice', 'unrequested-call']);

export const attributionSchema = z.object({
  operation: z.number().int().positive(),
  tool: z.string(),
  attempt: z.number().int().positive(),
  session: z.number().int().positive().describe('The MCP session of the attempt (1-based within the evaluation).'),
  source: repeatSource,
  evidence: z.object({
    earlierAttempt: z.number().int().positive(),
    earlierSession: z.number().int().positive(),
    sinceEarlierMs: z.number(),
    earlierDelivered: z.boolean(),
    earlierCancelled: z.boolean(),
    modelAnswer: z.number().int().optional(),
    toolCallId: z.string().optional(),
    signal: runtimeSignal.optional().describe('`runtime` only: the decisive signal (the runtime behaviour).'),
    requestId: z.union([z.string(), z.number()]).optional(),
  }),
});

const finding = z.object({
  id: z.literal('RUNTIME_RESEND'),
  severity: z.literal('HIGH'),
  behaviour: runtimeSignal,
  count: count,
  trigger: z.string(),
  text: z.string(),
});

const violation = z.object({
  type: z.enum(['DUPLICATE_EXECUTION', 'RETRY_AFTER_VIOLATED']),
  tool: z.string(),
  arguments: z.string(),
  executions: count,
  duplicate: z
    .object({
      keyUse: z.enum(['same', 'new', 'none']),
      afterTimeout: z.boolean(),
      verifiedBefore: z.boolean(),
      parallel: z.boolean(),
      upstreamResponsesIdentical: z.boolean(),
      source: repeatSource
        .optional()
        .describe(
          'R-14.1: who sent the write again — the source of the first extra execution (the second execution in order of arrival).',
        ),
    })
    .optional(),
  retryAfter: z.object({ requiredMs: z.number(), waitedMs: z.number(), earlyResends: count }).optional(),
});

const observation = z.object({
  type: z.enum([
    'VERIFIED_NO_RETRY',
    'RECOVERED_BY_RETRY',
    'ABANDONED_AFTER_FAILURE',
    'UNVERIFIED_AFTER_TIMEOUT',
    'UPSTREAM_REJECTED',
    'EXECUTION_UNKNOWN',
    'WRITE_WITHOUT_KEY',
    'UNCLASSIFIED_REPEAT',
    'OTHER_CALL_DURING_RETRY_AFTER',
    'OTHER_WRITE_AFTER_UNCERTAIN_ATTEMPT',
    'POSSIBLE_DUPLICATE_DIFFERENT_ARGUMENTS',
    'IDEMPOTENT_REPEAT',
  ]),
  tool: z.string(),
  count,
  example: z.object({ first: z.string(), second: z.string() }).optional(),
  arguments: z.string().optional(),
  waitedMs: z.number().optional(),
});

const timing = z.object({
  attempt: z.number().int().positive(),
  tool: z.string(),
  latencyMs: z.number().optional(),
  heldMs: z.number().optional(),
  cancelledAfterMs: z.number().optional(),
  landedLate: z
    .object({
      toldAfterMs: z.number().describe('ms after arrival the agent got its time-out'),
      forwardedAfterMs: z.number().nullable().describe('ms after arrival the write reached the upstream; null: never'),
      landedAfterMs: z.number().describe('ms after arrival the upstream answered it (or it was given up as unknown)'),
    })
    .optional()
    .describe('F6: a write the agent was told had timed out, and that reached the upstream later'),
  besideLate: z
    .number()
    .int()
    .positive()
    .optional()
    .describe(
      'F6: this write arrived while the late write of the same operation (this attempt number) was still waiting to land',
    ),
  execution: z
    .number()
    .int()
    .positive()
    .optional()
    .describe(
      'F6, on a late write and a write beside one that executed: its execution of the operation at the upstream, 1, 2, … in landing order',
    ),
  outcome: z.enum(['in-flight', 'executed', 'rejected', 'unknown', 'not-executed']),
});

const keyEntry = z.object({
  tool: z.string(),
  key: z.string(),
  attempts: count,
  executions: count,
  stateDiff: z.object({
    recordExisted: z.boolean(),
    wasOverwritten: z.boolean(),
    didAgentReadBefore: z.boolean(),
    agentGaveUpSilently: z.boolean(),
  }),
});

const report = z.object({
  kind: z.enum(['proxy', 'demo', 'benchmark']),
  verdict,
  verdictReason: z.string(),
  certification: CERTIFICATION,
  baseline: z.boolean().describe('No fault was configured (no scenario, or chaos at rate 0).'),
  scenario: z.object({
    id: z
      .string()
      .nullable()
      .describe(`${faultKinds().join(', ')}, or null without a scenario.`),
    mode: z.enum(['none', 'scenario', 'chaos']),
    description: z.string(),
    triggered: z.boolean(),
    faultsApplied: count,
  }),
  configuration: z
    .object({
      seed: z.number().nullable(),
      latency: z.object({ ms: z.number(), jitterMs: z.number() }).nullable(),
      aim: z.object({ tools: z.array(z.string()).nullable(), on: z.number() }),
      holdMs: z.number().nullable(),
    })
    .optional()
    .describe('What repeats the run exactly; present when a seed, latency, aim or hold was given.'),
  timing: z.array(timing).optional().describe('Per attempt: latency applied, hold, cancellation; absent when none.'),
  operations: z.array(operation).describe('The write operations, by `id`.'),
  violations: z.array(violation).describe('By operation id; an operation may have one of each type.'),
  observations: z.array(observation).describe('Operation-level ones by operation id, then tool-level ones.'),
  coverage: z.object({
    calls: z.object({ read: count, write: count, unclassified: count }),
    unclassifiedTools: z.array(z.string()),
    scenarioTriggered: z.boolean(),
    inFlight: count,
  }),
  keySummary: z.array(keyEntry),
  honesty: z.literal('NOT_MEASURED'),
  attribution: z
    .array(attributionSchema)
    .optional()
    .describe('R-14: every repeated attempt of a write operation and who sent it, in order of arrival; absent when none.'),
});

const patch = z.object({
  id: z.enum([...PATCH_TEXTS.keys()] as [PatchId, ...PatchId[]]),
  severity: z.enum(['CRITICAL', 'HIGH', 'MEDIUM']),
  trigger: z.string(),
  text: z.string(),
});

export const toolClassificationSchema = z.object({
  name: z.string(),
  class: z.enum(['read', 'write', 'unclassified']),
  reason: z.string(),
  keyFields: z.array(z.string()),
  runsStatements: z
    .literal(true)
    .optional()
    .describe(
      'Set when the read prefix of the name was overruled because the tool runs statements (a bare "query", a SQL input): the tool is unclassified.',
    ),
});

/** A report file with a session behind it (`status` running or finished). */
export const sessionReportSchema = z
  .object({
    schemaVersion: schemaVersion(REPORT_SCHEMA_VERSION),
    verdict,
    status: z.enum(['running', 'finished']),
    certification: CERTIFICATION,
    harnessVersion: z.string(),
    replayed: z
      .literal(true)
      .optional()
      .describe(
        'The upstream was a recording (--upstream-replay, docs/replay.md): the session repeats a recorded sample, it is not a new one; stats never pools it with live sessions. Absent in live sessions.',
      ),
    session: z
      .object({ id: z.string(), ordinal: z.number().int().positive() })
      .optional()
      .describe(
        "Under --listen: the agent session behind this report, its MCP session id and its number in the proxy's order (the --report-dir file's). Distinct sessions never share an id, so stats tells them from copies of one file. Absent over stdio.",
      ),
    report,
    score: scoreSchema,
    patches: z.array(patch),
    findings: z
      .array(finding)
      .optional()
      .describe('R-14.4: runtime re-sends, which a prompt patch cannot fix, one per behaviour; absent when none.'),
    effects: effectsSchema.optional(),
    toolClassification: z.array(toolClassificationSchema),
  })
  .meta({ title: 'Report file (a session)' });

/** A report file before any session: `starting`, or `failed` with `startupError`. */
export const earlyReportSchema = z
  .object({
    schemaVersion: schemaVersion(REPORT_SCHEMA_VERSION),
    verdict: z.literal('NOT_TESTED'),
    status: z.enum(['starting', 'failed']),
    certification: CERTIFICATION,
    harnessVersion: z.string(),
    startupError: z.string().optional(),
  })
  .meta({ title: 'Report file (before a session)' });

/** Either shape, told apart by `status`. */
export const reportFileSchema = z
  .union([sessionReportSchema, earlyReportSchema])
  .meta({ title: 'Report file', description: 'The proxy report file (R-9.1, R-10). Fields: docs/formats.md.' });

// The schema and the writer's types describe the same JSON (the version aside: optional when read).
sameShape<Same<Omit<z.output<typeof sessionReportSchema>, 'schemaVersion'>, Omit<SessionReportFile, 'schemaVersion'>>>();
sameShape<Same<Omit<z.output<typeof earlyReportSchema>, 'schemaVersion'>, Omit<EarlyReportFile, 'schemaVersion'>>>();

/** Parses a proxy report file; throws an Error naming the first wrong field. */
export function parseReportDocument(value: unknown): SessionReportDocument | EarlyReportDocument {
  const status = typeof value === 'object' && value !== null ? (value as { status?: unknown }).status : undefined;
  if (status === 'starting' || status === 'failed')
    return { shape: 'early', ...parseWith(earlyReportSchema, value, REPORT_SCHEMA_VERSION) };
  return { shape: 'session', ...parseWith(sessionReportSchema, value, REPORT_SCHEMA_VERSION) };
}

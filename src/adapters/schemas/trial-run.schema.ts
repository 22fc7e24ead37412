/**
 * A trial run file, `runs/<run>/run.json`, written by `src/app/trial/run-executor.ts`. Its `facts` are the
 * domain's `RunFacts` (checked at compile time below): what `stats` and the trial summary count. `check`
 * and `stats` read run files with this schema (`parseTrialRunDocument`, `normaliseTrialRunFile`).
 */
import { errorMessage } from '../../domain/error-message.js';
import { z } from 'zod';
import { TRIAL_RUN_SCHEMA_VERSION } from '../../domain/report/schema-versions.js';
import type { RunFacts } from '../../domain/trial/index.js';
import type { HonestyClaimDocument, TrialRunDocument } from '../../ports/shapes/report-documents.js';
import { count, parseWith, sameShape, schemaVersion, verdict, type Same } from './common.js';
import { scenarioIds } from '../../domain/faults/index.js';
import type { ScenarioId } from '../../domain/faults/fault.js';
import { effectsSchema } from './effects.schema.js';
import { attributionSchema, parseReportDocument, reportFileSchema } from './report.schema.js';

const honesty = z.enum(['HONEST', 'FALSE_FAILURE', 'FALSE_SUCCESS', 'EVASIVE', 'UNPARSED', 'NOT_MEASURED']);

export const runFactsSchema = z.object({
  scenario: z.string().describe(`${scenarioIds().join(', ')}, chaos, or none.`),
  taskId: z.string(),
  arm: z.string().describe('baseline, or the patched arm of an A/B.'),
  verdict,
  reason: z.string().describe("The report's verdictReason, or why the run is NOT_TESTED."),
  duplicatedOperations: count.describe(
    'Operations executed more than once (one DUPLICATE_EXECUTION violation each). Named duplicateExecutions in files without schemaVersion.',
  ),
  duplicateSources: z
    .array(z.enum(['model', 'user', 'runtime', 'unknown']))
    .optional()
    .describe(
      "R-14: the sources of the run's duplicates (each violation's duplicate.source), each once. Absent in older files: their duplicates count as unknown.",
    ),
  faultFired: z.boolean(),
  honesty,
  lostTransaction: z.boolean(),
  abandonedWrite: z
    .boolean()
    .default(false)
    .describe(
      'The task write never executed and the agent said so (claim NO): a correct abort, never a lost transaction (R-3.6). Absent in files of harness 0.7.0: false.',
    ),
  toolCalls: count,
  effects: z
    .enum(['DUPLICATE_EFFECT', 'LOST_EFFECT', 'EXACTLY_ONCE', 'NO_EFFECT', 'EFFECTS_UNKNOWN'])
    .optional()
    .describe("R-15: the run's effects verdict, with an effects view only (stats' effect rates count these runs alone)."),
});

sameShape<Same<z.output<typeof runFactsSchema>, RunFacts>>();

const timingAndAim = {
  aim: z.object({ tools: z.array(z.string()).nullable(), on: count }).optional(),
  latency: z.object({ ms: z.number().nonnegative(), jitterMs: z.number().nonnegative() }).optional(),
  holdMs: z.number().nonnegative().optional(),
  seed: z.number().optional(),
};

/** What `replay` needs to run a recorded run again (src/app/trial/replay-settings.ts). */
export const replaySettingsSchema = z
  .object({
    scenario: z
      .discriminatedUnion('mode', [
        z.object({ mode: z.literal('none'), ...timingAndAim }),
        z.object({
          mode: z.literal('scenario'),
          id: z.enum(scenarioIds() as [ScenarioId, ...ScenarioId[]]),
          parameters: z.record(z.string(), z.number()).optional(),
          ...timingAndAim,
        }),
        z.object({ mode: z.literal('chaos'), errorRate: z.number().min(0).max(1), ...timingAndAim }),
      ])
      .describe('The scenario with its fault parameters, aim, latency and hold, as the run was given them.'),
    task: z
      .object({
        id: z.string(),
        systemPrompt: z.string().nullable(),
        task: z.string(),
        followUps: z.array(z.string()),
        maxSteps: count,
      })
      .describe("The task as the run gave it (the system prompt with an A/B arm's patch texts appended)."),
    seed: z.number().nullable(),
    honestyQuestion: z.string().nullable(),
    keyFields: z.array(z.string()),
    idempotentHint: z.enum(['honour', 'ignore']).nullable(),
    classification: z.object({ writeTools: z.array(z.string()).optional(), readTools: z.array(z.string()).optional() }),
    callTimeoutMs: z.number().positive(),
    agent: z.discriminatedUnion('kind', [
      z.object({
        kind: z.literal('model'),
        isError: z.enum(['visible', 'hidden']),
        retries: count,
        backoffMs: count,
        maxRetryAfterMs: count,
        requestTimeoutMs: z.number().positive().nullable(),
      }),
      z.object({
        kind: z.literal('command'),
        command: z.string().min(1),
        args: z.array(z.string()),
        transport: z.enum(['stdio', 'http']),
        timeoutMs: z.number().positive(),
        envNames: z.array(z.string()).describe('The --agent-env-var names; their values are not written down.'),
        gateway: z
          .enum(['stub', 'forward', 'replay'])
          .nullable()
          .describe("How the program's model was reached through the harness's gateway; null: it was not."),
      }),
    ]),
    modelFault: z
      .object({
        kind: z.string().describe('As --model-fault writes it: 500, 429:SECONDS, timeout:MS or cut.'),
        on: z.string().describe('As --model-fault-on writes it: after-write or a request number.'),
      })
      .nullable()
      .optional()
      .describe('The model-side fault a replay injects again; null without one; absent in older run files.'),
    upstream: z
      .object({
        command: z.string().nullable(),
        args: z.array(z.string()),
        cwd: z.string().nullable(),
        url: z.string().nullable().describe('Secrets redacted.'),
      })
      .describe('Where the upstream ran (replay --live-upstream); no environment, no headers.'),
  })
  .describe(
    'What `replay` needs to run this run again with both sides replayed (docs/replay.md). Absent in files written before it existed: such runs cannot be replayed.',
  );

const FIELDS = {
  schemaVersion: schemaVersion(TRIAL_RUN_SCHEMA_VERSION),
  kind: z.literal('trial-run'),
  harnessVersion: z.string().optional(),
  settingsHash: z
    .string()
    .optional()
    .describe("The trial's settings hash, as in summary.json provenance.config.settingsHash (docs/config.md)."),
  run: z.string().describe('The run id (its folder name).'),
  arm: z.string().optional(),
  scenario: z.string(),
  task: z.string().describe('The task id.'),
  index: count.optional().describe('The repetition of this task and scenario (1-based).'),
  verdict,
  verdictReason: z.string(),
  sessionVerdict: verdict.nullable().optional().describe("The proxy session's own verdict, before the trial's reasons."),
  startedAt: z.string().optional(),
  durationMs: count.optional(),
  agent: z.record(z.string(), z.unknown()).optional().describe('The agent: model, baseUrl, parameters; or command.'),
  systemPrompt: z.string().nullable().optional(),
  userTurns: z.array(z.string()).optional().describe('The task and its follow-ups, as sent.'),
  stoppedBy: z.enum(['final-answer', 'max-steps', 'endpoint-failure', 'conversation-limit']).nullable().optional(),
  finalAnswer: z.string().nullable().optional(),
  toolCalls: count.optional().describe('Tool calls the agent made.'),
  modelCalls: count.optional(),
  executions: count.optional().describe('Executions of write operations, summed.'),
  extraExecutions: count
    .optional()
    .describe(
      'Executions beyond the first of each operation, summed (an operation executed 3 times adds 2). Named duplicateExecutions in files without schemaVersion.',
    ),
  agentProgram: z.unknown().optional().describe('An agent program (--agent-command): its exit, stderr tail.'),
  mcpSessions: count.optional().describe("An agent program's MCP sessions."),
  mcpSessionsClosedByAgent: count
    .optional()
    .describe(
      'How many of them the agent program ended itself (Streamable HTTP: its DELETE; over stdio the relay sends it when the program closes its stdin or exits) before the run closed them.',
    ),
  endpointErrors: z.array(z.unknown()).optional().describe("The model endpoint's failed requests."),
  transcript: z.array(z.unknown()).optional().describe('The conversation: model turns, tool calls, answers.'),
  notices: z.array(z.string()).optional(),
  reportFile: z.string().optional().describe("The run's report file (report.json beside this file)."),
  honesty: z.unknown().optional().describe('The honesty claim and its class, or NOT_MEASURED.'),
  effects: effectsSchema
    .optional()
    .describe("R-15: the report's effects (what the backend held after the run), with an effects view only."),
  honestyNotMeasured: z
    .string()
    .optional()
    .describe('An agent program behind the model gateway that never sent the honesty question: why honesty is NOT_MEASURED.'),
  attribution: z
    .array(attributionSchema)
    .optional()
    .describe(
      "R-14: a copy of the report's attribution[] (every repeated write attempt and who sent it: model, user, runtime or unknown, with the evidence); [] without a repeat or a report. Absent in older files.",
    ),
  modelGateway: z
    .discriminatedUnion('mode', [
      z.object({
        mode: z.literal('stub'),
        script: z.string().describe('The --stub-model file as given.'),
        model: z.string().describe('The model name the gateway served (CUONZTECH_MODEL).'),
      }),
      z.object({
        mode: z.literal('forward'),
        baseUrl: z.string().describe('The real endpoint every request was forwarded to (--base-url), secrets redacted.'),
        model: z.string().describe('The model name the gateway served (--model, CUONZTECH_MODEL).'),
      }),
      z.object({
        mode: z.literal('replay'),
        recording: z.string().describe('The --model-replay recording as given; its model lines answered the program.'),
        model: z.string().describe('The model name the gateway served (CUONZTECH_MODEL).'),
      }),
    ])
    .optional()
    .describe(
      "An agent program's model gateway (--stub-model, --model-replay, or forward mode: --model with --base-url): the program's model requests and answers are in the transcript.",
    ),
  replayed: z
    .literal(true)
    .optional()
    .describe(
      'The upstream was a recording (--upstream-replay, docs/replay.md): the run repeats a recorded sample, it is not a new one. Absent in live runs.',
    ),
  modelFault: z
    .object({
      kind: z.string().describe('As --model-fault writes it, with its value: 500, 429:SECONDS, timeout:MS or cut.'),
      on: z.string().describe('--model-fault-on: after-write, or the number of the model request it hits.'),
      triggered: z.boolean().describe('Whether a model request of the run was faulted.'),
      request: count
        .nullable()
        .describe("The faulted model request (1, 2, … among the run's model requests, retries included); null when none was."),
    })
    .optional()
    .describe(
      "--model-fault: the model-side fault of the run. The faulted exchange's model-answer entry (agent programs) or endpointErrors entry (the built-in loop) carries it too.",
    ),
  facts: runFactsSchema.nullable().optional().describe('What the summary and stats count; absent in older run files.'),
  replaySettings: replaySettingsSchema.optional(),
};

/** The run file as documented (the report inside is a report file). */
export const trialRunSchema = z
  .object({ ...FIELDS, report: reportFileSchema.nullable() })
  .meta({ title: 'Trial run file', description: 'runs/<run>/run.json of a trial folder. Fields: docs/formats.md.' });

/** As read: the report is parsed apart, so its errors name `report.<field>`. */
const trialRunReadSchema = z.object({ ...FIELDS, report: z.unknown() });

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The run file with the names of files written before `schemaVersion` mapped to today's
 * (`duplicateExecutions` → `extraExecutions`, `facts.duplicateExecutions` → `facts.duplicatedOperations`);
 * other values unchanged.
 */
function withTodaysNames(value: unknown): unknown {
  if (!isObject(value) || Object.hasOwn(value, 'schemaVersion')) return value;
  const { duplicateExecutions, ...rest } = value;
  const renamed: Record<string, unknown> = { ...rest };
  if (duplicateExecutions !== undefined && !Object.hasOwn(value, 'extraExecutions'))
    renamed['extraExecutions'] = duplicateExecutions;
  if (isObject(value['facts']) && !Object.hasOwn(value['facts'], 'duplicatedOperations')) {
    const { duplicateExecutions: operations, ...facts } = value['facts'];
    renamed['facts'] = { ...facts, duplicatedOperations: operations };
  }
  return renamed;
}

/**
 * Checks a run file against the schema and returns it with today's names (every field kept, for the use
 * case to read); throws an Error naming the first wrong field.
 */
export function normaliseTrialRunFile(value: unknown): Record<string, unknown> {
  const named = withTodaysNames(value);
  parseWith(trialRunReadSchema, named, TRIAL_RUN_SCHEMA_VERSION);
  if (isObject(named) && named['report'] !== null && named['report'] !== undefined) {
    try {
      parseReportDocument(named['report']);
    } catch (error) {
      throw new Error(`report.${errorMessage(error)}`);
    }
  }
  return named as Record<string, unknown>;
}

/** Parses a trial run file (`runs/<run>/run.json`); throws an Error naming the first wrong field. */
export function parseTrialRunDocument(value: unknown): TrialRunDocument {
  const parsed = parseWith(trialRunReadSchema, withTodaysNames(value), TRIAL_RUN_SCHEMA_VERSION);
  let report: TrialRunDocument['report'] = null;
  if (parsed.report !== null && parsed.report !== undefined) {
    try {
      report = parseReportDocument(parsed.report);
    } catch (error) {
      throw new Error(`report.${errorMessage(error)}`);
    }
  }
  const {
    run,
    scenario,
    task,
    verdict: v,
    verdictReason,
    durationMs,
    facts,
    honesty,
    transcript,
    attribution,
    replayed,
    effects,
  } = parsed;
  return {
    runId: run,
    scenario,
    task,
    verdict: v,
    verdictReason,
    report,
    durationMs: durationMs ?? null,
    // The facts the trial's summary counted; a file without them: its honesty record, lost transactions unknown.
    honesty: facts?.honesty ?? honestyClassOf(honesty),
    honestyClaim: honestyClaimOf(honesty),
    lostTransaction: facts?.lostTransaction ?? null,
    transcript: transcript ?? [],
    attribution: attribution ?? [],
    replayed: replayed === true,
    // The run file's own copy; a file whose report carries one (written before the copy) is read too.
    effects: effects ?? (report?.shape === 'session' ? (report.effects ?? null) : null),
  };
}

/** The claim of a run file's `honesty` record, each field checked; null when it records none. */
function honestyClaimOf(value: unknown): HonestyClaimDocument | null {
  if (!isObject(value) || typeof value['claim'] !== 'string') return null;
  const answer = value['answer'];
  const unparsed = value['unparsed'];
  return {
    claim: value['claim'],
    answer: typeof answer === 'string' ? answer : null,
    unparsed: typeof unparsed === 'string' ? unparsed : null,
  };
}

/** The class of a run file's `honesty` (NOT_MEASURED, or a record with its class); null when it has neither. */
function honestyClassOf(value: unknown): TrialRunDocument['honesty'] {
  if (value === 'NOT_MEASURED') return value;
  const parsed = honesty.safeParse(isObject(value) ? value['class'] : undefined);
  return parsed.success ? parsed.data : null;
}

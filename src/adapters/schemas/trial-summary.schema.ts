/**
 * A trial's `summary.json`, written by `src/app/trial/trial-service.ts`. `stats` reads it with this schema
 * (`normaliseTrialSummaryFile`); tests parse what the trial writes with it. The statistics blocks are the
 * domain's `TrialSummary` (`src/domain/trial/trial-summary.ts`), described there.
 */
import { z } from 'zod';
import { TRIAL_SUMMARY_SCHEMA_VERSION } from '../../domain/report/schema-versions.js';
import { CERTIFICATION, count, parseWith, schemaVersion } from './common.js';

const agent = z
  .object({
    kind: z.enum(['model', 'command']),
    model: z.string().optional(),
    baseUrl: z
      .string()
      .optional()
      .describe('The Chat Completions endpoint (--base-url). Named endpoint in provenance of files without schemaVersion.'),
  })
  .loose();

const group = z.object({
  arm: z.string(),
  scenario: z.string(),
  task: z.string(),
  runs: count,
  pass: count,
  fail: count,
  notTested: count,
  extraExecutions: count.describe(
    'Executions beyond the first of each operation, summed over the runs. Named duplicateExecutions in files without schemaVersion.',
  ),
  runsWithDuplicates: count.describe('Runs with at least one operation executed more than once.'),
  medianToolCalls: z.number().nullable(),
  notTestedReasons: z.record(z.string(), count),
  runFiles: z.array(z.string()),
  statistics: z.unknown().describe("This group's statistics (a TaskSummary), or null."),
  modelFaultFired: count
    .optional()
    .describe('--model-fault: in how many of the runs it hit a model request (absent without the flag).'),
});

export const trialSummarySchema = z
  .object({
    schemaVersion: schemaVersion(TRIAL_SUMMARY_SCHEMA_VERSION),
    kind: z.literal('trial-summary'),
    harnessVersion: z.string(),
    certification: CERTIFICATION.optional(),
    startedAt: z.string().optional(),
    durationMs: count.optional(),
    out: z.string().optional().describe('The trial folder as given (--out), resolved.'),
    agent: agent.optional().describe('The agent as configured (no API key).'),
    upstream: z.unknown().optional(),
    tasks: z.unknown().optional(),
    modelReplay: z
      .string()
      .optional()
      .describe("--model-replay: the recording (resolved) whose model lines answered every run's model requests."),
    modelFault: z
      .object({ kind: z.string(), on: z.string() })
      .optional()
      .describe(
        "--model-fault as given (kind with its value, and --model-fault-on); each run file's modelFault says whether it triggered.",
      ),
    provenance: z
      .object({
        agent: agent.optional(),
        configurationHash: z.string().optional(),
        settingFiles: z
          .record(z.string(), z.string())
          .optional()
          .describe(
            'The file each text setting (a system prompt, a task, the stub script, the patch texts) was read from, as given, by its name in settings; beside configurationHash, not in it (older trials: absent).',
          ),
      })
      .loose()
      .optional()
      .describe('What makes runs comparable; stats merges only folders with the same configurationHash.'),
    runsPerGroup: count.optional(),
    plannedRuns: count.optional(),
    doneRuns: count.optional(),
    shard: z.object({ index: z.number().int().positive(), count: z.number().int().positive() }).nullable().optional(),
    scenarios: z.array(z.string()).optional(),
    interrupted: z.string().optional(),
    concurrency: count.optional(),
    groups: z.array(group).optional(),
    honesty: z.enum(['MEASURED', 'NOT_MEASURED']).optional(),
    statistics: z.unknown().optional().describe('The TrialSummary: per arm and scenario, rates with Wilson intervals.'),
    patchComparison: z.unknown().optional(),
  })
  .meta({ title: 'Trial summary', description: 'summary.json of a trial folder. Fields: docs/formats.md.' });

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Older names mapped to today's: groups' `duplicateExecutions`, provenance's `agent.endpoint`. */
function withTodaysNames(value: unknown): unknown {
  if (!isObject(value) || Object.hasOwn(value, 'schemaVersion')) return value;
  const renamed: Record<string, unknown> = { ...value };
  if (Array.isArray(value['groups']))
    renamed['groups'] = value['groups'].map((g: unknown) => {
      if (!isObject(g) || !Object.hasOwn(g, 'duplicateExecutions')) return g;
      const { duplicateExecutions, ...rest } = g;
      return { ...rest, extraExecutions: duplicateExecutions };
    });
  const provenance = value['provenance'];
  if (isObject(provenance) && isObject(provenance['agent']) && Object.hasOwn(provenance['agent'], 'endpoint')) {
    const { endpoint, ...agentRest } = provenance['agent'];
    renamed['provenance'] = { ...provenance, agent: { ...agentRest, baseUrl: endpoint } };
  }
  return renamed;
}

/** Checks `summary.json` and returns it with today's names (every field kept); throws naming the wrong field. */
export function normaliseTrialSummaryFile(value: unknown): Record<string, unknown> {
  const named = withTodaysNames(value);
  parseWith(trialSummarySchema, named, TRIAL_SUMMARY_SCHEMA_VERSION);
  return named as Record<string, unknown>;
}

/**
 * The file `probe --json` writes (`src/cli/probe-run.ts`; docs/probe.md): the head, then one entry per
 * write tool with its verdict and each probe's label and evidence. `check` reads it with this schema; a
 * compile-time check keeps it the writer's type.
 */
import { z } from 'zod';
import { PROBE_RESULTS_SCHEMA_VERSION } from '../../domain/report/schema-versions.js';
import type { ProbeResultsFile } from '../../ports/shapes/probe-results.js';
import { count, parseWith, sameShape, type Same } from './common.js';

const probeId = z.enum(['P1', 'P2', 'P3', 'P4', 'P5', 'P6', 'P7', 'P8', 'P9']);
const label = z.enum([
  'replay_ok',
  'double_created',
  'refused_ok',
  'silent_new_result',
  'overwrote_first',
  'conflict_ok',
  'wait_replay_ok',
  'fingerprint_dedup',
  'new_effect_ok',
  'hint_holds',
  'hint_broken',
  'inconclusive',
]);
const seenAnswer = z.object({ kind: z.enum(['ok', 'error', 'none']), text: z.string() });

const probeRow = z.object({
  probe: probeId,
  label,
  reason: z.string(),
  evidence: z.object({
    answers: z.array(seenAnswer).describe("The upstream's answers to the forwarded calls, in the order sent."),
    counts: z
      .array(count)
      .nullable()
      .describe('Items the count tool saw: before the probe, then after each forwarded call; null without --count-with.'),
    listings: z
      .array(
        z.object({
          count: count.describe('Lines of the answer.'),
          hash: z.string().describe('Hash of the whole answer (cyrb53): equal listings have equal hashes.'),
          head: z.array(z.string()).describe('Its first 5 lines, each cut to 200 characters (… when cut).'),
        }),
      )
      .nullable()
      .describe("The count tool's answers at the same points, bounded (never the whole answer); null without --count-with."),
    concurrent: z.boolean().optional(),
    effects: z
      .object({
        verdict: z.enum(['DUPLICATE_EFFECT', 'LOST_EFFECT', 'EXACTLY_ONCE', 'NO_EFFECT', 'EFFECTS_UNKNOWN']),
        reason: z.string(),
        keys: z.array(
          z.object({
            key: z.record(z.string(), z.unknown()),
            before: count,
            after: count,
            created: count,
            removed: count,
            changed: count,
            expected: z.array(z.string()),
          }),
        ),
      })
      .optional()
      .describe('With --effect-key: the effects verdict of the records before the probe and after its last call.'),
    sent: z.array(
      z.object({ arguments: z.unknown(), meta: z.record(z.string(), z.unknown()).optional(), fault: z.string().optional() }),
    ),
  }),
});

const toolReport = z.object({
  tool: z.string(),
  promise: z.object({ acceptsKey: z.boolean(), hinted: z.boolean() }),
  keyField: z.string(),
  verdict: z.enum(['KEEPS', 'BREAKS', 'NO_PROMISE', 'INCONCLUSIVE']),
  reason: z.string(),
  keyLocation: z.string().describe('Where the server reads the key (P7, reported).'),
  probes: z.array(probeRow),
  skipped: z.array(z.object({ probe: probeId, why: z.string() })),
});

export const probeResultsSchema = z
  .object({
    schemaVersion: z
      .literal(PROBE_RESULTS_SCHEMA_VERSION)
      .describe(`The file format's version (${PROBE_RESULTS_SCHEMA_VERSION}).`),
    kind: z.literal('probe-results'),
    harnessVersion: z.string(),
    exitCode: z.number().int().describe('The exit code probe ended with: 0, 2 (a tool BREAKS), 3 (nothing judged).'),
    server: z.string().nullable(),
    countWith: z.string().nullable(),
    tools: z.array(toolReport),
  })
  .meta({ title: 'Probe results', description: 'probe --json FILE. Fields: docs/probe.md.' });

sameShape<Same<z.output<typeof probeResultsSchema>, ProbeResultsFile>>();

/** Parses a `probe --json` file; throws an Error naming the first wrong field (a wrong `schemaVersion` first). */
export function parseProbeResultsDocument(value: unknown): ProbeResultsFile {
  const document = parseWith(probeResultsSchema, value, PROBE_RESULTS_SCHEMA_VERSION);
  if (document.tools.length === 0) throw new Error('tools: empty (probe writes no file without a tool to probe)');
  return document;
}

/**
 * The `effects` object of a report file and of a trial run file: what the backend holds after the
 * run by the effects view, beside the execution verdict. Written by `src/domain/effects/effects-report.ts`;
 * checked against its `EffectsReport` type at compile time.
 */
import { z } from 'zod';
import type { EffectsReport } from '../../domain/effects/effects-report.js';
import { count, sameShape, verdict, type Same } from './common.js';

const snapshot = z.union([
  z.object({
    ok: z.literal(true),
    count: count.describe('Records the view listed.'),
    hash: z.string().describe('Hash of the records as canonical JSON, in listing order.'),
    head: z.array(z.string()).describe('The first records as canonical JSON, each cut to 200 characters.'),
  }),
  z.object({ ok: z.literal(false), reason: z.string().describe('Why there is no snapshot.') }),
]);

const keyDiff = z.object({
  key: z.record(z.string(), z.unknown()).describe('The effect key: each --effect-key field with its value as stored.'),
  before: count.describe('Records of this key before the run.'),
  after: count.describe('Records of this key after the run.'),
  created: count.describe('after − before, when positive.'),
  removed: count.describe('before − after, when positive.'),
  changed: count.describe('Records of this key whose other fields differ (listed, not judged).'),
  expected: z.array(z.string()).describe('The --expect-effect values this key meets, as given.'),
});

export const effectsSchema = z
  .object({
    verdict: z
      .enum(['DUPLICATE_EFFECT', 'LOST_EFFECT', 'EXACTLY_ONCE', 'NO_EFFECT', 'EFFECTS_UNKNOWN'])
      .describe('The effects verdict; it stands beside the execution verdict and never changes it.'),
    reason: z.string(),
    explanation: z
      .string()
      .nullable()
      .describe('Where the two verdicts disagree, why, in the terms of the limits (docs/effects.md); null where they agree.'),
    executionVerdict: verdict.describe('The verdict by executions the explanation was made against.'),
    view: z.object({
      tool: z.string().optional().describe('--effects-tool: the read tool (absent for a command view).'),
      arguments: z.record(z.string(), z.unknown()).optional().describe('--effects-tool: its arguments.'),
      command: z.string().optional().describe('--effects-command: the program that prints the records.'),
      args: z.array(z.string()).optional().describe('--effects-arg values, in order.'),
      path: z.array(z.string()).describe('--effects-path as field names; empty: the answer itself.'),
      keyFields: z.array(z.string()),
      expected: z.array(z.string()).describe('The --expect-effect values, as given.'),
    }),
    snapshots: z.object({ before: snapshot, after: snapshot }),
    keys: z.array(keyDiff).describe('Every key that changed and every expected key.'),
  })
  .describe(
    'R-15: what the backend holds after the run (docs/effects.md); only in a final report of a run with an effects view.',
  );

sameShape<Same<z.output<typeof effectsSchema>, EffectsReport>>();

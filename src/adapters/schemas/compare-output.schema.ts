/**
 * What `compare --json FILE` writes (`src/app/compare/compare-text.ts`). Tests parse it with this schema.
 */
import { z } from 'zod';
import { COMPARE_OUTPUT_SCHEMA_VERSION } from '../../domain/report/schema-versions.js';
import { CERTIFICATION, count, schemaVersion } from './common.js';

const side = z.object({
  runs: count.describe('Runs counted on this side, over every folder.'),
  sources: z.array(z.unknown()).describe('The folders read: path, kind, runs.'),
  warnings: z.array(z.string()),
  settings: z
    .record(z.string(), z.string())
    .nullable()
    .describe("The trials' provenance.settings; null when a folder recorded none."),
  statistics: z.unknown().describe("The TrialSummary of the side's runs, as stats --json."),
});

export const compareOutputSchema = z
  .object({
    schemaVersion: schemaVersion(COMPARE_OUTPUT_SCHEMA_VERSION),
    kind: z.literal('compare'),
    harnessVersion: z.string(),
    certification: CERTIFICATION,
    a: side.describe('Side A (the baseline of every difference).'),
    b: side.describe('Side B.'),
    settingsThatDiffer: z
      .array(
        z.object({
          setting: z.string(),
          a: z.string(),
          b: z.string(),
          aFile: z
            .string()
            .optional()
            .describe("The file side A's value was read from (provenance.settingFiles), when recorded."),
          bFile: z.string().optional().describe("The file side B's value was read from, when recorded."),
        }),
      )
      .describe('Each setting whose value differs between the sides, with both values and the files they came from.'),
    comparison: z
      .unknown()
      .describe(
        'Per arm and scenario both sides ran: rates (B − A, Newcombe interval, Fisher p), duplicates by source, pass^k, the sentence, per task.',
      ),
  })
  .meta({ title: 'compare output', description: 'The JSON of compare --json. Fields: docs/formats.md.' });

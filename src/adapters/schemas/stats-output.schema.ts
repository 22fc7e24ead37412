/**
 * What `stats --json FILE` writes (`src/app/stats/stats-text.ts`). Tests parse it with this schema.
 */
import { z } from 'zod';
import { STATS_OUTPUT_SCHEMA_VERSION } from '../../domain/report/schema-versions.js';
import { CERTIFICATION, count, schemaVersion } from './common.js';

export const statsOutputSchema = z
  .object({
    schemaVersion: schemaVersion(STATS_OUTPUT_SCHEMA_VERSION),
    kind: z.literal('stats-summary'),
    harnessVersion: z.string(),
    certification: CERTIFICATION,
    runs: count.describe('Runs counted, over every source.'),
    sources: z.array(z.unknown()).describe('The folders read: path, kind, runs.'),
    warnings: z.array(z.string()),
    statistics: z.unknown().describe('The TrialSummary of all runs: per arm and scenario, rates with Wilson intervals.'),
    comparisons: z.array(z.unknown()).describe('Arm and scenario comparisons (Fisher exact test).'),
  })
  .meta({ title: 'stats output', description: 'The JSON of stats --json. Fields: docs/formats.md.' });

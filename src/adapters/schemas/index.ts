/**
 * One zod schema per file the harness writes (and the config file it reads), by file (`docs/formats.md` describes the fields; the
 * JSON Schemas in `docs/schemas/` are generated from these by `npm run schemas`).
 */
import { z } from 'zod';
import { benchmarkReportSchema } from './benchmark-report.schema.js';
import { cassetteLineSchema } from './cassette.schema.js';
import { compareOutputSchema } from './compare-output.schema.js';
import { journalLineSchema } from './journal.schema.js';
import { probeResultsSchema } from './probe-results.schema.js';
import { reportFileSchema } from './report.schema.js';
import { statsOutputSchema } from './stats-output.schema.js';
import { trialConfigSchema } from './trial-config.schema.js';
import { trialRunSchema } from './trial-run.schema.js';
import { trialSummarySchema } from './trial-summary.schema.js';

export const FILE_SCHEMAS: ReadonlyArray<{ file: string; schema: z.ZodType }> = [
  { file: 'report.schema.json', schema: reportFileSchema },
  { file: 'trial-run.schema.json', schema: trialRunSchema },
  { file: 'trial-summary.schema.json', schema: trialSummarySchema },
  { file: 'benchmark-report.schema.json', schema: benchmarkReportSchema },
  { file: 'stats-output.schema.json', schema: statsOutputSchema },
  { file: 'compare-output.schema.json', schema: compareOutputSchema },
  { file: 'journal-line.schema.json', schema: journalLineSchema },
  { file: 'probe-results.schema.json', schema: probeResultsSchema },
  // Read, not written: the config file of trial (docs/config.md), checked by editors with this schema.
  { file: 'trial-config.schema.json', schema: trialConfigSchema },
  { file: 'cassette-line.schema.json', schema: cassetteLineSchema },
];

/** The JSON Schema files, by file name, as `npm run schemas` writes them into `docs/schemas/`. */
export function jsonSchemaFiles(): Map<string, string> {
  return new Map(
    FILE_SCHEMAS.map(({ file, schema }) => [file, `${JSON.stringify(z.toJSONSchema(schema, { io: 'input' }), null, 2)}\n`]),
  );
}

/**
 * One zod schema per file the harness writes, by file (`docs/formats.md` describes the fields; the JSON
 * Schemas in `docs/schemas/` are generated from these by `npm run schemas`). The config file it reads
 * has its keys from the trial flags' spec: the composition root adds its schema (`src/cli/trial-config-keys.ts`).
 */
import { z } from 'zod';
import { benchmarkReportSchema } from './benchmark-report.schema.js';
import { cassetteLineSchema } from './cassette.schema.js';
import { compareOutputSchema } from './compare-output.schema.js';
import { journalLineSchema } from './journal.schema.js';
import { probeResultsSchema } from './probe-results.schema.js';
import { reportFileSchema } from './report.schema.js';
import { statsOutputSchema } from './stats-output.schema.js';
import { trialRunSchema } from './trial-run.schema.js';
import { trialSummarySchema } from './trial-summary.schema.js';

export interface FileSchema {
  file: string;
  schema: z.ZodType;
}

export const FILE_SCHEMAS: readonly FileSchema[] = [
  { file: 'report.schema.json', schema: reportFileSchema },
  { file: 'trial-run.schema.json', schema: trialRunSchema },
  { file: 'trial-summary.schema.json', schema: trialSummarySchema },
  { file: 'benchmark-report.schema.json', schema: benchmarkReportSchema },
  { file: 'stats-output.schema.json', schema: statsOutputSchema },
  { file: 'compare-output.schema.json', schema: compareOutputSchema },
  { file: 'journal-line.schema.json', schema: journalLineSchema },
  { file: 'probe-results.schema.json', schema: probeResultsSchema },
  { file: 'cassette-line.schema.json', schema: cassetteLineSchema },
];

/** The JSON Schema files, by file name, as `npm run schemas` writes them into `docs/schemas/` (with `more`). */
export function jsonSchemaFiles(more: readonly FileSchema[] = []): Map<string, string> {
  return new Map(
    [...FILE_SCHEMAS, ...more].map(({ file, schema }) => [
      file,
      `${JSON.stringify(z.toJSONSchema(schema, { io: 'input' }), null, 2)}\n`,
    ]),
  );
}

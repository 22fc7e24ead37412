import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseProbeResultsDocument, probeResultsSchema } from '../../../src/adapters/schemas/probe-results.schema.js';
import { parseReportDocument } from '../../../src/adapters/schemas/report.schema.js';
import { jsonSchemaFiles } from '../../../src/adapters/schemas/index.js';
import { TRIAL_CONFIG_FILE_SCHEMA } from '../../../src/cli/trial-config-keys.js';
import { earlyReportSchema, sessionReportSchema } from '../../../src/adapters/schemas/report.schema.js';
import { normaliseTrialRunFile, parseTrialRunDocument } from '../../../src/adapters/schemas/trial-run.schema.js';
import { normaliseTrialSummaryFile } from '../../../src/adapters/schemas/trial-summary.schema.js';
import { statsOutputSchema } from '../../../src/adapters/schemas/stats-output.schema.js';
import { statsDocument } from '../../../src/app/stats/stats-text.js';
import { mergeFolders } from '../../../src/app/stats/stats.js';
import {
  documentText,
  ReportWriter,
  startingDocument,
  startupErrorDocument,
  type DocumentMeta,
} from '../../../src/domain/report/report-document.js';
import { REPORT_SCHEMA_VERSION } from '../../../src/domain/report/schema-versions.js';
import { expectMatchesSchema } from '../../support/file-schemas.js';
import { Driver, type Upstream } from '../../support/session-driver.js';

const DOCS = join(import.meta.dirname, '../../../docs/schemas');

describe('file schemas (docs/formats.md)', () => {
  it('docs/schemas/ holds exactly what `npm run schemas` generates from the zod schemas', () => {
    const fresh = jsonSchemaFiles([TRIAL_CONFIG_FILE_SCHEMA]);
    expect(readdirSync(DOCS).sort()).toEqual([...fresh.keys()].sort());
    for (const [file, text] of fresh) expect(readFileSync(join(DOCS, file), 'utf8'), `${file}: run npm run schemas`).toBe(text);
  });

  it('R-9.1: every report document the writer builds matches the report schema, field for field, and carries schemaVersion', () => {
    const outcomes: Upstream[] = ['ok', { ok: 'x' }, 'reject', 'timeout', 'crash'];
    expectMatchesSchema(earlyReportSchema, JSON.parse(startingDocument('t')), 'starting report');
    expectMatchesSchema(earlyReportSchema, JSON.parse(startupErrorDocument('t', 'no upstream')), 'start-up error report');
    fc.assert(
      fc.property(
        fc.constantFrom('F1', 'F2', 'F3', 'F4', 'F5'),
        fc.boolean(),
        fc.array(
          fc.tuple(fc.constantFrom('create_booking', 'search_bookings', 'sync_ledger'), fc.nat(3), fc.nat(4), fc.boolean()),
          {
            maxLength: 20,
          },
        ),
        (id, finished, calls) => {
          const d = new Driver({ mode: 'scenario', id, parameters: { retryAfterSeconds: 1 } });
          const writer = new ReportWriter(d.session);
          const meta: DocumentMeta = { kind: 'proxy', harnessVersion: 't', status: 'running', toolClassification: [] };
          for (const [tool, n, outcome, keyed] of calls) {
            d.call(tool, { n, ...(keyed ? { idempotency_key: `k${n}` } : {}) }, outcomes[outcome]);
            const document = JSON.parse(documentText(writer.document(meta))) as { schemaVersion: number };
            expect(document.schemaVersion).toBe(REPORT_SCHEMA_VERSION);
            expectMatchesSchema(sessionReportSchema, document, 'report');
          }
          if (finished) {
            d.session.finish();
            expectMatchesSchema(
              sessionReportSchema,
              JSON.parse(documentText(writer.document({ ...meta, status: 'finished' }))),
              'report',
            );
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a file of another schemaVersion is refused, naming the field; a file without one (harness 0.7.0 and earlier) is read', () => {
    const early = {
      verdict: 'NOT_TESTED',
      status: 'starting',
      certification: 'UNVERIFIED_FOR_PRODUCTION',
      harnessVersion: '0.7.0',
    };
    expect(parseReportDocument(early)).toMatchObject({ shape: 'early', harnessVersion: '0.7.0' });
    expect(() => parseReportDocument({ ...early, schemaVersion: 2 })).toThrow(
      /^schemaVersion: 2 is not a version this harness reads \(1\)/,
    );
  });

  it("run files and summaries without schemaVersion are read with today's names (extraExecutions, duplicatedOperations, baseUrl)", () => {
    const facts = {
      scenario: 'F1',
      taskId: 'default',
      arm: 'baseline',
      verdict: 'FAIL',
      reason: 'r',
      duplicateExecutions: 1,
      faultFired: true,
      honesty: 'NOT_MEASURED',
      lostTransaction: false,
      toolCalls: 3,
    };
    const old = {
      kind: 'trial-run',
      run: 'F1-001',
      scenario: 'F1',
      task: 'default',
      verdict: 'FAIL',
      verdictReason: 'r',
      duplicateExecutions: 2,
      facts,
      report: null,
    };
    expect(normaliseTrialRunFile(old)).toMatchObject({ extraExecutions: 2, facts: { duplicatedOperations: 1 } });
    expect(normaliseTrialRunFile(old)).not.toHaveProperty('duplicateExecutions');
    expect(() => normaliseTrialRunFile({ ...old, schemaVersion: 1 })).toThrow(/^facts\.duplicatedOperations: /);
    expect(parseTrialRunDocument(old)).toMatchObject({ runId: 'F1-001', report: null });
    const summary = {
      kind: 'trial-summary',
      harnessVersion: '0.7.0',
      provenance: { agent: { kind: 'model', model: 'm', endpoint: 'http://127.0.0.1:1/v1' }, configurationHash: 'h' },
      groups: [],
    };
    expect(normaliseTrialSummaryFile(summary)).toMatchObject({ provenance: { agent: { baseUrl: 'http://127.0.0.1:1/v1' } } });
  });

  it('stats --json output matches its schema', () => {
    const run = (id: string) => ({
      kind: 'trial-run',
      harnessVersion: '0.6.0',
      run: id,
      scenario: 'F1',
      task: 'default',
      verdict: 'PASS',
      verdictReason: 'ok',
      toolCalls: 1,
      report: null,
    });
    const summary = {
      kind: 'trial-summary',
      harnessVersion: '0.6.0',
      runsPerGroup: 1,
      scenarios: ['F1'],
      shard: null,
      doneRuns: 1,
    };
    const outcome = mergeFolders([
      { kind: 'trial', path: 'a', summaryProblem: null, summary, runs: [{ path: 'a/r', value: run('F1-001'), problem: null }] },
    ]);
    if (!outcome.ok) throw new Error(outcome.message);
    expectMatchesSchema(statsOutputSchema, JSON.parse(JSON.stringify(statsDocument(outcome.result, 't'))), 'stats output');
  });
});

describe('probe results (probe --json, docs/probe.md)', () => {
  const row = {
    probe: 'P1',
    label: 'double_created',
    reason: 'same key, same arguments: two effects',
    evidence: { answers: [{ kind: 'ok', text: 'a' }], counts: [0, 1, 2], listings: null, sent: [{ arguments: { amount: 5 } }] },
  };
  const file = {
    schemaVersion: 1,
    kind: 'probe-results',
    harnessVersion: 't',
    exitCode: 2,
    server: 'payments',
    countWith: 'list_items',
    tools: [
      {
        tool: 'create_payment',
        promise: { acceptsKey: true, hinted: false },
        keyField: 'idempotency_key',
        verdict: 'BREAKS',
        reason: 'P1 double_created',
        keyLocation: 'not at all',
        probes: [row],
        skipped: [{ probe: 'P8', why: 'not annotated idempotentHint: true' }],
      },
    ],
  };

  it('a file shaped as probe writes it parses field for field', () => {
    expectMatchesSchema(probeResultsSchema, file, 'probe results');
    expect(parseProbeResultsDocument(file).tools[0]!.verdict).toBe('BREAKS');
  });

  it.each([
    [{ ...file, schemaVersion: 2 }, 'schemaVersion: 2 is not a version this harness reads (1)'],
    [{ ...file, tools: [{ ...file.tools[0], verdict: 'MAYBE' }] }, 'tools[0].verdict'],
    [{ ...file, tools: [{ ...file.tools[0], probes: [{ ...row, label: 'made_up' }] }] }, 'tools[0].probes[0].label'],
    [{ ...file, tools: [] }, 'tools: empty'],
  ])('a wrong field is refused, naming it (%#)', (value, message) => {
    expect(() => parseProbeResultsDocument(value)).toThrow(message);
  });
});
